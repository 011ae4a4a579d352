/**
 * Buttons and modals reach their handler only through their custom_id codec: an id that does not
 * decode (stale or tampered with) gets the localized "expired" explanation and does nothing.
 */
import { describe, expect, it } from 'vitest';
import { MessageFlags } from 'discord.js';
import { ADMIN_ID, buttonPress, modalSubmit } from '../helpers/discord.js';
import { botTest, type BotHarness } from '../helpers/bot.js';
import { button, type CommandModule } from '../../src/interactions/command.js';
import { customId } from '../../src/interactions/custom-id.js';
import { routeTable } from '../../src/interactions/routes.js';

const EXPIRED = 'These buttons have expired. Run the command again.';

function answer(h: BotHarness): { type: number; flags?: number; text?: string } {
  const body = h.discord.callbacks().at(-1)!.body as { type: number; data: { flags?: number; embeds?: { description?: string }[] } };
  return { type: body.type, flags: body.data.flags, text: body.data.embeds?.[0]?.description };
}

describe('a custom_id that does not decode', () => {
  botTest.for([
    ['a page that is not a number', `feed:list:abc:-:${ADMIN_ID}`],
    ['a page in exponent notation', `feed:list:1e0:-:${ADMIN_ID}`],
    ['a page beyond safe integers', `feed:list:9007199254740993:-:${ADMIN_ID}`],
    ['a channel that is not a snowflake', `feed:list:2:general:${ADMIN_ID}`],
    ['a missing part', `feed:list:2:-`],
    ['an extra part', `feed:posts:3:10:-:2:${ADMIN_ID}:x`],
    ['a limit over 50', `feed:posts:3:51:-:2:${ADMIN_ID}`],
    ['a kind that does not exist', `feed:posts:3:10:video:2:${ADMIN_ID}`],
    ['an expiry that is not a number (it would never expire)', `feed:delete:yes:1:${ADMIN_ID}:never`],
    ['an answer other than yes/no', `feed:delete:sure:1:${ADMIN_ID}:99999999999`],
    ['an action this version does not have', 'feed:archive:1'],
  ] as const)('%s gets the expired explanation, privately, and calls no API', async ([, customId], { bot: h }) => {
    await h.run(buttonPress(customId));
    expect(answer(h)).toEqual({ type: 4, flags: MessageFlags.Ephemeral, text: EXPIRED });
    expect(h.logs.find((l) => l.msg === 'interaction')).toMatchObject({ outcome: 'user_error', upstreamStatus: null });
  });

  botTest('is explained in the user language', async ({ bot: h }) => {
    await h.run(buttonPress(`feed:list:abc:-:${ADMIN_ID}`, { locale: 'es-ES' }));
    expect(answer(h).text).toBe('Estos botones han caducado. Vuelve a ejecutar el comando.');
  });

  botTest('a tampered modal id stores nothing', async ({ bot: h }) => {
    await h.keys.delete('1100000000000000001');
    await h.run(modalSubmit('apikey:set:x', { key: 'fbk_SomethingLongEnough_1234' }));
    expect(answer(h)).toEqual({ type: 4, flags: MessageFlags.Ephemeral, text: EXPIRED });
    expect(await h.keys.get('1100000000000000001')).toBeUndefined();
  });

  botTest('a component of a command this bot does not have is an unknown command', async ({ bot: h }) => {
    await h.run(buttonPress('weather:today:1'));
    expect(answer(h).text).toBe('This command is not known to this version of the bot.');
    expect(h.logs.find((l) => l.msg === 'interaction')).toMatchObject({ command: 'button weather:today', outcome: 'unknown_command' });
  });
});

describe('the route table', () => {
  const command = (name: string, prefix: string): CommandModule => ({
    data: { name, toJSON: () => ({ name, description: name }) },
    command: { ephemeral: true, run: async () => undefined },
    buttons: [button({ id: customId(prefix as `${string}:${string}`, {}), answer: 'update', ephemeral: true, run: async () => undefined })],
  });

  it('refuses a component whose custom_id does not start with its command, or one claimed twice', () => {
    expect(() => routeTable([command('feed', 'stats:x')])).toThrow(/does not start with feed:/);
    expect(() => routeTable([command('feed', 'feed:x'), { ...command('feed', 'feed:x'), data: { name: 'feed', toJSON: () => ({ name: 'feed', description: 'd' }) } }])).toThrow(/Two components claim feed:x/);
  });
});
