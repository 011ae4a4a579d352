/**
 * Fault matrix, feed API side: every fault of api-faults.ts × every family of families.ts, in
 * English and Spanish. Each cell checks the private, localized explanation (from the catalogue),
 * the interaction's single log line (outcome, level, a reference the user also sees when the
 * failure is unexpected), the number of requests the retry policy sent (a create is never
 * repeated), that nothing crashed, and that the bot serves the same command normally afterwards.
 */
import { describe, expect } from 'vitest';
import type { APIInteraction } from 'discord-api-types/v10';
import { GUILD_ID } from '../helpers/discord.js';
import { TEST_KEY, botTest, type BotHarness, type HarnessOptions } from '../helpers/bot.js';
import { API_FAULTS, expectedText, unconfirmedOf, type ApiFault, type InjectContext } from './api-faults.js';
import { FAMILIES, NEW_KEY, answerHealthily, runFamily, type Family } from './families.js';
import { LEVEL, LOCALES, apiRequests, catalogueFor, interactionLine, visibleAnswer, watchForCrashes } from './support.js';

watchForCrashes();

type Clock = { now: number };

/**
 * Each test gets its own clock (the 429 cells move it past the reset) and short per-attempt
 * time-outs (time-out cells take ~1.2 s); tests are independent, so a file's cells run concurrently.
 */
const faultTest = botTest.extend<{ clock: Clock; harness: HarnessOptions }>({
  // eslint-disable-next-line no-empty-pattern -- vitest reads the fixture's dependencies from this pattern
  clock: async ({}, use) => use({ now: Date.now() }),
  harness: async ({ clock }, use) => use({ timeoutMs: 400, now: () => clock.now }),
});

/** Injects `fault` on the family's requests and runs it; the call history starts at the faulted interaction. */
async function runWithFault(h: BotHarness, clock: Clock, f: Family, fault: ApiFault, locale: string): Promise<{ raw: APIInteraction; ctx: InjectContext }> {
  const ctx: InjectContext = { now: clock.now };
  const raw = await runFamily(h, f, locale, () => {
    h.agent.enableCallHistory();
    h.agent.clearCallHistory();
    for (const target of fault.stopsAtFirst ? f.targets.slice(0, 1) : f.targets) fault.inject(h.api, target, ctx);
  });
  return { raw, ctx };
}

/** The family answers normally again once the fault is gone (and any spent window has reset). */
async function expectRecovery(h: BotHarness, clock: Clock, f: Family, fault: ApiFault, locale: string): Promise<void> {
  if (fault.spendsBudget) clock.now += 61_000;
  h.agent.clearCallHistory();
  const raw = await runFamily(h, f, locale, () => answerHealthily(h.api, f));
  expect(interactionLine(h, raw)).toMatchObject({ outcome: 'ok', level: LEVEL.info });
  expect(visibleAnswer(h, raw, f.sourcePrivate).via).not.toBe('nothing');
}

/** While a 429 storm lasts, the gate refuses the same command locally: same explanation, nothing sent. */
async function expectLocalRefusal(h: BotHarness, f: Family, locale: string, ctx: InjectContext): Promise<void> {
  h.agent.clearCallHistory();
  // The same interaction again (a button: pressed again on the same confirmation).
  const raw = f.interaction(h, locale);
  await h.run(raw);
  const line = interactionLine(h, raw);
  expect(apiRequests(h)).toBe(0);
  if (f.answer === 'choices') {
    expect(visibleAnswer(h, raw).choices).toEqual([]);
    return;
  }
  expect(line).toMatchObject({ outcome: 'rate_limited_local', level: LEVEL.info, upstreamStatus: null });
  const fault = API_FAULTS.find((x) => x.id === '429-storm')!;
  expect(visibleAnswer(h, raw, f.sourcePrivate).text).toBe(expectedText(fault, catalogueFor(locale), { ...ctx, status: 429 }));
}

function messageCell(f: Family, fault: ApiFault, locale: string) {
  faultTest(`${f.id}: private explanation, one log line, ${f.write ? 'the write sent as the policy says' : 'requests as the policy says'}`, async ({ bot: h, clock }) => {
    const { raw, ctx } = await runWithFault(h, clock, f, fault, locale);
    const target = f.targets[0]!;
    const line = interactionLine(h, raw);
    const seen = visibleAnswer(h, raw, f.sourcePrivate);
    expect(seen.private, 'the explanation is ephemeral').toBe(true);
    expect(seen.messages.every((m) => m.private) && !seen.publicPlaceholderLeft, 'nothing public is left').toBe(true);
    const ref = typeof line.ref === 'string' ? line.ref : undefined;
    expect(seen.text).toBe(expectedText(fault, catalogueFor(locale), { ...ctx, status: fault.upstreamStatus(target) ?? 0, ref }, unconfirmedOf(f)));
    expect(line).toMatchObject({ outcome: fault.outcome(fault.upstreamStatus(target) ?? 0), level: LEVEL[fault.level], upstreamStatus: fault.upstreamStatus(target), ...fault.logged });
    expect(ref !== undefined, 'a reference exactly for unexpected failures').toBe(fault.ref);
    expect(apiRequests(h, target.method, target.path)).toBe(fault.attempts[target.method]);
    if (fault.spendsBudget) await expectLocalRefusal(h, f, locale, ctx);
    await expectRecovery(h, clock, f, fault, locale);
  });
}

function autocompleteCell(f: Family, fault: ApiFault, locale: string) {
  faultTest(`${f.id}: an empty list in time, the reason at debug level, outcome ok`, async ({ bot: h, clock }) => {
    const { raw, ctx } = await runWithFault(h, clock, f, fault, locale);
    const target = f.targets[0]!;
    expect(visibleAnswer(h, raw)).toMatchObject({ via: 'choices', choices: [], acknowledgements: 1 });
    expect(interactionLine(h, raw)).toMatchObject({ outcome: 'ok', level: LEVEL.info, upstreamStatus: fault.upstreamStatus(target) });
    expect(h.logs.some((l) => l.msg === 'autocomplete could not load the feed list')).toBe(true);
    expect(apiRequests(h, target.method, target.path)).toBe(fault.attempts[target.method]);
    if (fault.spendsBudget) await expectLocalRefusal(h, f, locale, ctx);
    await expectRecovery(h, clock, f, fault, locale);
  });
}

/**
 * The key probe turns most failures into "could not be checked" and may still store the key
 * (marked unverified); a 429 refuses. Either way the answer tells the truth about the store:
 * the new key is stored exactly when the answer says it was saved, else the old one is intact.
 */
function keyProbeCell(f: Family, fault: ApiFault, locale: string) {
  faultTest(`${f.id}: private answer that matches what was stored, one log line`, async ({ bot: h, clock }) => {
    const { raw, ctx } = await runWithFault(h, clock, f, fault, locale);
    const line = interactionLine(h, raw);
    const seen = visibleAnswer(h, raw);
    expect(seen.private).toBe(true);
    const stored = await h.keys.get(GUILD_ID);
    const saved = seen.text?.includes(`••••${NEW_KEY.slice(-4)}`) ?? false;
    expect(stored?.apiKey).toBe(saved ? NEW_KEY : TEST_KEY);
    if (fault.stopsAtFirst) {
      expect(seen.text).toBe(expectedText(fault, catalogueFor(locale), { ...ctx, status: 429 }));
      expect(line).toMatchObject({ outcome: 'api_429', level: LEVEL.info });
    } else if (saved) {
      expect(line).toMatchObject({ outcome: 'ok', level: LEVEL.info });
    }
    for (const target of fault.stopsAtFirst ? f.targets.slice(0, 1) : f.targets) {
      expect(apiRequests(h, target.method, target.path), `${target.method} ${target.path}`).toBe(fault.attempts[target.method]);
    }
  });
}

/** A family that sends no request: the fault cannot reach it. Checked, not skipped. */
function notApplicableCell(f: Family, locale: string) {
  faultTest(`${f.id}: not applicable (${f.noRequestBecause}); answers normally, sends nothing`, async ({ bot: h }) => {
    const raw = await runFamily(h, f, locale, () => {
      h.agent.enableCallHistory();
      h.agent.clearCallHistory();
    });
    expect(interactionLine(h, raw)).toMatchObject({ outcome: 'ok', upstreamStatus: null });
    expect(visibleAnswer(h, raw, f.sourcePrivate)).toMatchObject({ private: true });
    expect(apiRequests(h)).toBe(0);
  });
}

describe.concurrent.each(LOCALES)('feed API faults, %s', (locale) => {
  describe.each(API_FAULTS)('$label', (fault) => {
    for (const f of FAMILIES) {
      // Spanish: the cells where the user reads an explanation.
      if (locale !== 'en-US' && (f.targets.length === 0 || f.answer === 'choices')) continue;
      if (f.targets.length === 0) notApplicableCell(f, locale);
      else if (f.answer === 'choices') autocompleteCell(f, fault, locale);
      else if (f.writesKey) keyProbeCell(f, fault, locale);
      else messageCell(f, fault, locale);
    }
  });
});
