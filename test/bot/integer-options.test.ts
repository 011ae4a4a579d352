/**
 * Integer options: Discord accepts any integer up to ±2^53 unless the definition bounds it, and an
 * old client or a tampered payload may send anything. Every integer option is bounded in the
 * definition, and the handlers check the bounds again: a value outside them gets a plain,
 * localized explanation and no API request.
 */
import { describe, expect, it } from 'vitest';
import { ApplicationCommandOptionType, MessageFlags, type APIApplicationCommandOption } from 'discord.js';
import { commands } from '../../src/commands.js';
import { isSlashCommand } from '../../src/interactions/command.js';
import { CHANNEL_ID, chatInput, type OptionValue } from '../helpers/discord.js';
import { botTest } from '../helpers/bot.js';

interface IntegerOption {
  command: string;
  sub: string | undefined;
  name: string;
  min: number | undefined;
  max: number | undefined;
  /** Valid values for the other required options of the same (sub)command. */
  required: Record<string, OptionValue>;
}

type Leaf = APIApplicationCommandOption & { required?: boolean; min_value?: number; max_value?: number; choices?: { value: string | number }[] };

function validValue(o: Leaf): OptionValue {
  if (o.choices?.length) return o.choices[0]!.value;
  if (o.type === ApplicationCommandOptionType.Integer || o.type === ApplicationCommandOptionType.Number) return o.min_value ?? 1;
  if (o.type === ApplicationCommandOptionType.Channel) return { channel: { id: CHANNEL_ID, name: 'general' } };
  if (o.type === ApplicationCommandOptionType.Boolean) return true;
  return 'nasa';
}

/** Every integer option of every command, with what a payload needs besides it. */
function integerOptions(): IntegerOption[] {
  const found: IntegerOption[] = [];
  for (const body of commands.filter(isSlashCommand).map((c) => c.data.toJSON())) {
    const groups = (body.options ?? []).some((o) => o.type === ApplicationCommandOptionType.Subcommand)
      ? (body.options ?? []).map((s) => ({ sub: s.name as string | undefined, leaves: ((s as { options?: Leaf[] }).options ?? []) }))
      : [{ sub: undefined, leaves: (body.options ?? []) as Leaf[] }];
    for (const { sub, leaves } of groups) {
      for (const o of leaves.filter((l) => l.type === ApplicationCommandOptionType.Integer)) {
        const required = Object.fromEntries(leaves.filter((l) => l.required && l.name !== o.name).map((l) => [l.name, validValue(l)]));
        found.push({ command: body.name, sub, name: o.name, min: o.min_value, max: o.max_value, required });
      }
    }
  }
  return found;
}

const OPTIONS = integerOptions();
const label = (o: IntegerOption) => `/${o.command}${o.sub ? ` ${o.sub}` : ''} ${o.name}`;

describe('integer options in the definitions', () => {
  it('are found (feed delete id, feed posts id and limite, feed list pagina)', () => {
    expect(OPTIONS.map(label).sort()).toEqual(['/feed delete id', '/feed list pagina', '/feed posts id', '/feed posts limite']);
  });

  it.each(OPTIONS.map((o) => [label(o), o] as const))('%s has a minimum and a maximum no larger than a safe integer', (_, o) => {
    expect(o.min).toBeGreaterThanOrEqual(1);
    expect(o.max).toBeDefined();
    expect(o.max!).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
    expect(o.max!).toBeGreaterThanOrEqual(o.min!);
  });

  it('feed ids may be any positive id the API can have', () => {
    for (const o of OPTIONS.filter((x) => x.name === 'id')) expect([o.min, o.max]).toEqual([1, Number.MAX_SAFE_INTEGER]);
  });
});

/** What a user reads for a value outside the bounds: a feed that cannot exist, or the bounds. */
function expected(o: IntegerOption, value: number): string {
  if (o.name === 'id') return `Feed #${value} does not exist in this server.`;
  const shown = { limite: 'limit', pagina: 'page' }[o.name];
  return `The option \`${shown}\` must be a whole number from ${o.min} to ${o.max}.`;
}

describe('a value outside the bounds that still arrives', () => {
  const cases = OPTIONS.flatMap((o) => [
    [label(o), o.max! + 1, o] as const,
    [label(o), o.min! - 1, o] as const,
    [label(o), 2 ** 60, o] as const,
  ]);

  botTest.for(cases)('%s = %d is explained, with no API request', async ([, value, o], { bot: h }) => {
    await h.run(chatInput(o.command, o.sub, { ...o.required, [o.name]: value }));
    const calls = h.discord.callbacks();
    expect(calls).toHaveLength(1);
    const reply = calls[0]!.body as { type: number; data: { flags?: number; embeds: { description: string }[] } };
    expect(reply.type).toBe(4);
    expect(reply.data.flags).toBe(MessageFlags.Ephemeral);
    expect(reply.data.embeds[0]!.description).toBe(expected(o, value));
    expect(h.logs.find((l) => l.msg === 'interaction')).toMatchObject({ outcome: 'user_error' });
  });

  botTest('the reported case: /feed posts id:9007199254740992, in Spanish', async ({ bot: h }) => {
    await h.run(chatInput('feed', 'posts', { id: 9007199254740992 }, { locale: 'es-ES' }));
    const reply = h.discord.callbacks()[0]!.body as { data: { embeds: { description: string }[] } };
    expect(reply.data.embeds[0]!.description).toBe('El feed #9007199254740992 no existe en este servidor.');
  });

  botTest('a limit out of range, in Spanish', async ({ bot: h }) => {
    await h.run(chatInput('feed', 'posts', { id: 1, limite: 51 }, { locale: 'es-ES' }));
    const reply = h.discord.callbacks()[0]!.body as { data: { embeds: { description: string }[] } };
    expect(reply.data.embeds[0]!.description).toBe('La opción `limite` debe ser un número entero de 1 a 50.');
  });
});
