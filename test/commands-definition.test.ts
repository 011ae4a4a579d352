/** The command definitions sent to Discord respect its documented rules. */
import { describe, expect, it } from 'vitest';
import { ApplicationCommandOptionType, Locale, PermissionFlagsBits, type APIApplicationCommandOption, type APIApplicationCommandOptionChoice } from 'discord.js';
import { commands } from '../src/commands.js';
import { isSlashCommand } from '../src/interactions/command.js';
import { DEFAULT_LANG, DISCORD_LOCALES } from '../src/i18n/index.js';

const NAME = /^[-_\p{L}\p{N}]{1,32}$/u;
/** Slash commands; context-menu commands (no options, no description) are checked apart. */
const bodies = commands.filter(isSlashCommand).map((c) => c.data.toJSON());
/** Everything deployed, slash and context-menu. */
const deployed = commands.map((c) => c.data.toJSON());

function walk(options: APIApplicationCommandOption[] | undefined, visit: (o: APIApplicationCommandOption) => void) {
  for (const o of options ?? []) {
    visit(o);
    if ('options' in o) walk(o.options as APIApplicationCommandOption[], visit);
  }
}

describe('command definitions', () => {
  it('are feed, stats, apikey and feedbot', () => {
    expect(bodies.map((b) => b.name)).toEqual(['feed', 'stats', 'apikey', 'feedbot']);
  });

  it('names, descriptions and localizations fit Discord', () => {
    for (const b of bodies) {
      const all: { name: string; description: string; name_localizations?: Record<string, string | null> | null; description_localizations?: Record<string, string | null> | null }[] = [b as never];
      walk(b.options, (o) => all.push(o as never));
      for (const item of all) {
        expect(item.name).toMatch(NAME);
        expect(item.name).toBe(item.name.toLowerCase());
        expect(item.description.length).toBeGreaterThan(0);
        expect(item.description.length).toBeLessThanOrEqual(100);
        for (const n of Object.values(item.name_localizations ?? {})) expect(n).toMatch(NAME);
        for (const d of Object.values(item.description_localizations ?? {})) expect(d!.length).toBeLessThanOrEqual(100);
        expect(Object.keys(item.description_localizations ?? {})).toEqual(expect.arrayContaining(['es-ES', 'es-419']));
      }
    }
  });

  it('choices ≤ 25, never together with autocomplete', () => {
    for (const b of bodies) {
      walk(b.options, (o) => {
        const choices = (o as { choices?: unknown[] }).choices;
        if (choices) expect(choices.length).toBeLessThanOrEqual(25);
        if ((o as { autocomplete?: boolean }).autocomplete) expect(choices).toBeUndefined();
      });
    }
  });

  it('are guild-only; apikey and feedbot default to Manage Server', () => {
    for (const b of bodies) expect(b.contexts).toEqual([0]);
    for (const name of ['apikey', 'feedbot']) {
      expect({ name, permissions: bodies.find((b) => b.name === name)!.default_member_permissions }).toEqual({ name, permissions: String(PermissionFlagsBits.ManageGuild) });
    }
    expect(bodies.find((b) => b.name === 'feed')!.default_member_permissions ?? null).toBeNull();
  });

  it('feed create offers every non-empty combination of post, reel and story', () => {
    const create = bodies.find((b) => b.name === 'feed')!.options!.find((o) => o.name === 'create') as { options: { name: string; type: number; choices?: { value: string }[]; channel_types?: number[] }[] };
    const tipos = create.options.find((o) => o.name === 'tipos')!;
    expect(tipos.choices!.map((c) => c.value).sort()).toEqual(
      ['post', 'reel', 'story', 'post+reel', 'post+story', 'reel+story', 'post+reel+story'].sort(),
    );
    const canal = create.options.find((o) => o.name === 'canal')!;
    expect(canal.type).toBe(ApplicationCommandOptionType.Channel);
    expect(canal.channel_types).toEqual([0, 5]);
  });

  it('are exactly what was deployed (a change here must be deliberate: re-deploy, then `vitest -u`)', async () => {
    await expect(JSON.stringify(deployed, null, 2)).toMatchFileSnapshot('./__snapshots__/commands.json');
  });

  it('localize every name and description for every Discord locale, and every choice for every locale of every catalogue', () => {
    const all = Object.values(Locale).sort();
    const others = Object.entries(DISCORD_LOCALES).flatMap(([lang, locales]) => (lang === DEFAULT_LANG ? [] : locales)).sort();
    for (const b of bodies) {
      expect(Object.keys(b.description_localizations ?? {}).sort()).toEqual(all);
      walk(b.options, (o) => {
        expect(Object.keys(o.name_localizations ?? {}).sort()).toEqual(all);
        expect(Object.keys(o.description_localizations ?? {}).sort()).toEqual(all);
        for (const c of (o as { choices?: APIApplicationCommandOptionChoice[] }).choices ?? []) {
          expect(Object.keys(c.name_localizations ?? {}).sort()).toEqual(others);
        }
      });
    }
  });

  // The README promises "everyone else in English": a French or German client must not see the
  // API words (`canal`, `cuenta`) that are the base names, nor a mix of Spanish names and English
  // descriptions.
  it.each([Locale.French, Locale.German, Locale.Japanese, Locale.PortugueseBR, Locale.Indonesian])('a %s client sees the English names and descriptions', (locale) => {
    for (const b of bodies) {
      const items: { name: string; description: string; name_localizations?: Record<string, string | null> | null; description_localizations?: Record<string, string | null> | null }[] = [b as never];
      walk(b.options, (o) => items.push(o as never));
      for (const item of items) {
        expect({ at: item.name, name: item.name_localizations?.[locale] ?? item.name }).toEqual({ at: item.name, name: item.name_localizations?.[Locale.EnglishUS] ?? item.name });
        expect({ at: item.name, description: item.description_localizations?.[locale] ?? item.description }).toEqual({ at: item.name, description: item.description });
      }
    }
    const feed = bodies.find((b) => b.name === 'feed')!;
    const create = feed.options!.find((o) => o.name === 'create') as { options: APIApplicationCommandOption[] };
    expect(create.options.map((o) => o.name_localizations?.[locale])).toEqual(['account', 'channel', 'types']);
  });

  // Discord counts, per command, the name, description and value of the command, its options and
  // choices, each field at its longest localization (the default included): at most 8000.
  it('each command stays within 8000 characters, counted at the longest localization of each field', () => {
    const longest = (base: string, map?: Record<string, string | null> | null) => Math.max(base.length, ...Object.values(map ?? {}).map((v) => v?.length ?? 0));
    const sizes = bodies.map((b) => {
      let size = longest(b.name, b.name_localizations) + longest(b.description, b.description_localizations);
      walk(b.options, (o) => {
        size += longest(o.name, o.name_localizations) + longest(o.description, o.description_localizations);
        for (const c of (o as { choices?: APIApplicationCommandOptionChoice[] }).choices ?? []) size += longest(c.name, c.name_localizations) + String(c.value).length;
      });
      return { command: b.name, size };
    });
    for (const s of sizes) expect(s.size, JSON.stringify(s)).toBeLessThanOrEqual(8000);
  });

  it('feed delete says it deletes one feed or many', () => {
    const remove = bodies.find((b) => b.name === 'feed')!.options!.find((o) => o.name === 'delete')!;
    expect(remove.description).toBe('Delete one feed, every feed of a channel, or every feed with a warning');
    expect(remove.description_localizations?.['es-ES']).toBe('Elimina un feed, todos los de un canal o todos los que tienen avisos');
  });

  it('posts limite is bounded 1–50', () => {
    const posts = bodies.find((b) => b.name === 'feed')!.options!.find((o) => o.name === 'posts') as { options: { name: string; min_value?: number; max_value?: number }[] };
    expect(posts.options.find((o) => o.name === 'limite')).toMatchObject({ min_value: 1, max_value: 50 });
  });
});
