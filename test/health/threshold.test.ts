/**
 * /feedbot health threshold [dias]: shows and sets the server's "no post for N days" threshold,
 * privately, for Manage Server only, with out-of-range values explained in the user's language,
 * over both transports.
 */
import { describe, expect } from 'vitest';
import { ApplicationCommandOptionType, MessageFlags } from 'discord.js';
import type { APIChatInputApplicationCommandInteraction } from 'discord-api-types/v10';
import { GUILD_ID, MEMBER_ID, MEMBER_PERMS, chatInput, type Invoker } from '../helpers/discord.js';
import { botTest, type BotHarness } from '../helpers/bot.js';

type Body = { type: number; data: { flags?: number; embeds: { title?: string; description?: string; color?: number }[] } };
const last = (h: BotHarness) => h.discord.callbacks().at(-1)!.body as Body;
const lastText = (h: BotHarness) => last(h).data.embeds[0]!.description;
const stored = async (h: BotHarness) => (await h.settings.get(GUILD_ID)).staleAfterDays;

/** `/feedbot health threshold [dias]`, a grouped subcommand as Discord sends it. */
function threshold(dias?: number, invoker: Invoker = {}): APIChatInputApplicationCommandInteraction {
  const raw = chatInput('feedbot', undefined, {}, invoker);
  const options = dias === undefined ? [] : [{ name: 'dias', type: ApplicationCommandOptionType.Integer, value: dias }];
  raw.data.options = [
    { name: 'health', type: ApplicationCommandOptionType.SubcommandGroup, options: [{ name: 'threshold', type: ApplicationCommandOptionType.Subcommand, options }] },
  ] as typeof raw.data.options;
  return raw;
}

// test/health is not in the 'commands over http' project: both transports here.
describe.each(['gateway', 'http'] as const)('/feedbot health threshold (%s)', (transport) => {
  botTest.override({ harness: { transport } });

  botTest('shows the default, sets a value, then shows it, privately', async ({ bot: h }) => {
    await h.run(threshold());
    expect(last(h).data.flags).toBe(MessageFlags.Ephemeral);
    expect(last(h).data.embeds[0]).toMatchObject({
      title: 'Feed health',
      description: 'Feeds with no post for more than **7 days** (the default) are marked ⏳ in `/feed list`. Change it with `/feedbot health threshold days:`.',
    });

    await h.run(threshold(14));
    expect(last(h).data.flags).toBe(MessageFlags.Ephemeral);
    expect(lastText(h)).toBe('Feeds with no post for more than **14 days** are now marked ⏳ in `/feed list`.');
    expect(await stored(h)).toBe(14);

    await h.run(threshold());
    expect(lastText(h)).toBe('Feeds with no post for more than **14 days** are marked ⏳ in `/feed list`. Change it with `/feedbot health threshold days:`.');
  });

  botTest('in Spanish', async ({ bot: h }) => {
    await h.run(threshold(undefined, { locale: 'es-ES' }));
    expect(last(h).data.embeds[0]).toMatchObject({ title: 'Salud de los feeds', description: expect.stringContaining('**7 días** (el valor por defecto)') as unknown });
    await h.run(threshold(365, { locale: 'es-419' }));
    expect(lastText(h)).toBe('A partir de ahora, los feeds sin publicaciones desde hace más de **365 días** se marcan con ⏳ en `/feed lista`.');
    expect(await stored(h)).toBe(365);
  });

  botTest.for([
    [0, 'en-US', 'The option `days` must be a whole number from 1 to 365.'],
    [366, 'en-US', 'The option `days` must be a whole number from 1 to 365.'],
    [-3, 'es-ES', 'La opción `dias` debe ser un número entero de 1 a 365.'],
  ] as const)('refuses %i (%s) and stores nothing', async ([dias, locale, text], { bot: h }) => {
    await h.run(threshold(dias, { locale }));
    expect(lastText(h)).toBe(text);
    expect(await stored(h)).toBeUndefined();
  });

  botTest('needs Manage Server, at run time', async ({ bot: h }) => {
    await h.run(threshold(3, { userId: MEMBER_ID, permissions: MEMBER_PERMS }));
    expect(last(h).data.flags).toBe(MessageFlags.Ephemeral);
    expect(lastText(h)).toMatch(/Manage Server/);
    expect(lastText(h)).toMatch(/change feedbot's settings in this server/);
    expect(await stored(h)).toBeUndefined();
  });
});
