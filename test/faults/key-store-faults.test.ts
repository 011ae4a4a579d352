/**
 * Fault matrix, key store side: locked, read-only, corrupt file, corrupt record × every family.
 * The store runs with no cache (every command reads SQLite) and a 50 ms busy timeout (a lock
 * costs 50 ms, not 5 s). Each failing cell checks the private, localized explanation with a
 * reference that is also logged, that no request was sent without a key, and — once repaired —
 * that a failed write left the key as it was and the command works again.
 */
import { describe, expect } from 'vitest';
import { GUILD_ID } from '../helpers/discord.js';
import { TEST_KEY, botTest, type BotHarness } from '../helpers/bot.js';
import { FAMILIES, answerHealthily, runFamily, type Family } from './families.js';
import { KEY_STORE_FAULTS, type KeyStoreFault } from './key-store-faults.js';
import { LEVEL, LOCALES, apiRequests, catalogueFor, interactionLine, visibleAnswer, watchForCrashes } from './support.js';

watchForCrashes();

botTest.override({ harness: { keyStore: { cacheSize: 0, busyTimeoutMs: 50 } } });

/** Runs the family with the store broken just before its interaction; returns the repair. */
async function runBroken(h: BotHarness, f: Family, fault: KeyStoreFault, locale: string, apiAnswers: boolean) {
  let repair: (() => Promise<void>) | undefined;
  const raw = await runFamily(h, f, locale, async () => {
    if (apiAnswers) answerHealthily(h.api, f);
    h.agent.enableCallHistory();
    h.agent.clearCallHistory();
    repair = await fault.inject(h);
  });
  return { raw, repair };
}

function errorCell(f: Family, fault: KeyStoreFault, locale: string) {
  const e = fault.expect(f);
  if (e.kind !== 'error') throw new Error('not an error cell');
  botTest(`${f.id}: ${f.answer === 'choices' ? 'an empty list' : 'private explanation'}, one log line, nothing half-stored`, async ({ bot: h }) => {
    // Only the key probe of /apikey set reaches the API before the store.
    const probesFirst = f.writesKey && f.targets.length > 0;
    const { raw, repair } = await runBroken(h, f, fault, locale, probesFirst);
    try {
      const line = interactionLine(h, raw);
      expect(line).toMatchObject({ outcome: e.outcome, level: LEVEL[e.level] });
      expect(typeof line.ref === 'string').toBe(e.ref);
      expect(JSON.stringify(line.err), 'the logged cause').toMatch(fault.evidence);
      const seen = visibleAnswer(h, raw, f.sourcePrivate);
      if (f.answer === 'choices') {
        expect(seen).toMatchObject({ via: 'choices', choices: [] });
      } else {
        expect(seen.private).toBe(true);
        expect(seen.text).toBe(catalogueFor(locale)(e.key, { ref: String(line.ref) }));
      }
      if (!probesFirst) expect(apiRequests(h), 'no request without a key').toBe(0);
    } finally {
      await repair?.();
    }
    if (!repair) return; // Only an operator can repair a corrupt store.
    if (f.writesKey) expect((await h.keys.get(GUILD_ID))?.apiKey, 'the key as it was').toBe(TEST_KEY);
    const again = await runFamily(h, f, locale, () => answerHealthily(h.api, f));
    expect(interactionLine(h, again)).toMatchObject({ outcome: 'ok' });
  });
}

function unaffectedCell(f: Family, fault: KeyStoreFault, why: string) {
  botTest(`${f.id}: unaffected (${why}); answers normally`, async ({ bot: h }) => {
    const { raw, repair } = await runBroken(h, f, fault, 'en-US', true);
    try {
      expect(interactionLine(h, raw)).toMatchObject({ outcome: 'ok', level: LEVEL.info });
      expect(visibleAnswer(h, raw, f.sourcePrivate).via).not.toBe('nothing');
    } finally {
      await repair?.();
    }
  });
}

describe.concurrent.each(LOCALES)('key store faults, %s', (locale) => {
  describe.each(KEY_STORE_FAULTS)('$label', (fault) => {
    for (const f of FAMILIES) {
      const e = fault.expect(f);
      if (e.kind === 'unaffected') {
        if (locale === 'en-US') unaffectedCell(f, fault, e.why);
      } else if (locale === 'en-US' || f.answer === 'message') {
        errorCell(f, fault, locale);
      }
    }
  });
});
