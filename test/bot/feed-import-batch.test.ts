/**
 * /feed import after Import is pressed: the creates through the batch runner, one progress
 * message, waits for the request budget (local gate and 429), the 15-minute deadline, per-feed
 * refusals, re-runs that import only the rest, creates whose answer was lost never repeated, and
 * one import per server at a time.
 */
import { describe, expect, vi } from 'vitest';
import { MessageFlags } from 'discord.js';
import { buttonPress, type Invoker } from '../helpers/discord.js';
import { botTest, rl, type BotHarness } from '../helpers/bot.js';
import { C1, exportFile, field, guildChannels, importPayload, lastShown, previewButtons, shown, type Message } from './transfer-fixtures.js';

const FILE = exportFile(['a', 'b', 'c'].map((cuenta) => ({ cuenta, canal: C1, tipos: ['post'] })));
const listed = (...feeds: [number, string][]) => ({
  feeds: feeds.map(([id, cuenta]) => ({ id, cuenta, canal: C1, estado: 'activo', tipos: ['post'], filtros: 0, ultimoPost: null })),
  total: feeds.length,
  plan: 'server',
});
const created = (id: number, cuenta: string) => ({ id, cuenta, canalId: C1, estado: 'activo', creado: '2026-11-21T12:00:00.000Z' });
/** MockAgent also runs body matchers against bodyless requests (a GET after a consumed POST). */
const forAccount = (cuenta: string) => (body: string | undefined) => typeof body === 'string' && (JSON.parse(body) as { cuenta: string }).cuenta === cuenta;

interface ImportRun {
  /** What the list answers for the preview, and when Import is pressed (default: the same). */
  existing?: [number, string][];
  atImport?: [number, string][];
  /** Rate-limit headers of those two lists. */
  headers?: Record<string, string>;
  invoker?: Invoker;
}

/** The preview for FILE, then Import pressed; resolves when the import ended. */
async function importFile(h: BotHarness, run: ImportRun = {}): Promise<void> {
  const headers = run.headers ?? rl();
  guildChannels(h, [C1]);
  h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listed(...(run.existing ?? [])), { headers });
  await h.run(importPayload(h, FILE, run.invoker));
  h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listed(...(run.atImport ?? run.existing ?? [])), { headers });
  await h.run(buttonPress(previewButtons(h).confirm, run.invoker, MessageFlags.Ephemeral));
}

function createReplies(h: BotHarness, replies: Record<string, { status: number; body?: object; headers?: Record<string, string>; delayMs?: number }>) {
  for (const [cuenta, r] of Object.entries(replies)) {
    const i = h.api.intercept({ path: '/v1/feeds', method: 'POST', body: forAccount(cuenta) }).reply(r.status, r.body ?? {}, { headers: r.headers ?? rl() });
    if (r.delayMs) i.delay(r.delayMs);
  }
}

const progress = (h: BotHarness) => shown(h).filter((m) => m.embeds[0]!.title === 'Importing feeds');
const report = (h: BotHarness): Message => lastShown(h);

describe('Import', () => {
  botTest('creates every feed, editing one progress message at most once a second, then reports; each creation is audited', async ({ bot: h }) => {
    const audit = vi.spyOn(h.audit, 'record');
    createReplies(h, { a: { status: 201, body: created(11, 'a'), delayMs: 600 }, b: { status: 201, body: created(12, 'b'), delayMs: 600 }, c: { status: 201, body: created(13, 'c'), delayMs: 600 } });
    await importFile(h);

    // The press replaced the preview (no buttons) with "0 of 3", then edits of that same message.
    const press = h.discord.callbacks().at(-1)!.body as { type: number; data: Message };
    expect(press.type).toBe(7);
    expect(press.data).toMatchObject({ embeds: [{ title: 'Importing feeds', description: '0 of 3 created' }], components: [] });
    const edits = h.discord.edits().filter((e) => (e.body as Message).embeds[0]!.title === 'Importing feeds');
    expect(edits.length).toBeGreaterThanOrEqual(1);
    for (const e of edits) expect((e.body as Message).embeds[0]!.description).toMatch(/^[12] of 3 created$/);
    const times = [h.discord.callbacks().at(-1)!.at, ...edits.map((e) => e.at)];
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(950);

    const final = report(h);
    expect(final.embeds[0]).toMatchObject({ title: 'Import finished', description: '3 created · 0 already present · 0 refused · 0 not attempted' });
    expect(field(final, 'Created (3)')).toBe([`Row 1 · **@a** → <#${C1}> · Posts · #11`, `Row 2 · **@b** → <#${C1}> · Posts · #12`, `Row 3 · **@c** → <#${C1}> · Posts · #13`].join('\n'));
    expect(final.components).toEqual([]);
    expect(audit.mock.calls.map((c) => [c[0], c[1]])).toEqual(
      [11, 12, 13].map((id, i) => ['1100000000000000001', { kind: 'feedCreated', actor: { userId: '1400000000000000001' }, feed: { id, cuenta: 'abc'[i], canalId: C1, tipos: ['post'] } }]),
    );
  });

  botTest('a refusal of the API (its feed limit, 400) is reported per feed and the others go on', async ({ bot: h }) => {
    const limit = { status: 400, body: { error: { mensaje: 'Límite de feeds alcanzado (50)' } } };
    createReplies(h, { a: { status: 201, body: created(11, 'a') }, b: limit, c: limit });
    await importFile(h);
    const final = report(h);
    expect(final.embeds[0]!.title).toBe('Import incomplete');
    expect(final.embeds[0]!.description).toBe(
      '1 created · 0 already present · 2 refused · 0 not attempted\nRun `/feed import` again with the same file to import the rest: feeds already there are skipped.',
    );
    expect(field(final, 'Refused (2)')!.split('\n')).toEqual(
      ['b', 'c'].map((x, i) => `Row ${i + 2} · **@${x}** → <#${C1}> · Posts: The API rejected the request as invalid. The API says: “Límite de feeds alcanzado (50)”`),
    );
  });

  botTest('a re-run imports only the rest, skipping feeds created before it or meanwhile', async ({ bot: h }) => {
    createReplies(h, { c: { status: 201, body: created(13, 'c') } });
    // The preview already knows `a`; `b` appears between the preview and the press.
    await importFile(h, { existing: [[11, 'a']], atImport: [[11, 'a'], [12, 'b']] });
    const final = report(h);
    expect(final.embeds[0]).toMatchObject({ title: 'Import finished', description: '1 created · 2 already present · 0 refused · 0 not attempted' });
  });

  botTest('a 401 stops the batch: what was done, and what was not attempted', async ({ bot: h }) => {
    createReplies(h, { a: { status: 201, body: created(11, 'a') }, b: { status: 401 } });
    await importFile(h);
    const final = report(h);
    expect(final.embeds[0]!.description).toMatch(/^1 created · 0 already present · 0 refused · 2 not attempted\nStopped: The API key of this server is invalid or was regenerated\./);
    expect(field(final, 'Not attempted (2)')).toBe([`Row 2 · **@b** → <#${C1}> · Posts`, `Row 3 · **@c** → <#${C1}> · Posts`].join('\n'));
  });

  botTest('a second press while it runs starts nothing (the message is left to the first)', async ({ bot: h }) => {
    createReplies(h, { a: { status: 201, body: created(11, 'a'), delayMs: 300 }, b: { status: 201, body: created(12, 'b') }, c: { status: 201, body: created(13, 'c') } });
    guildChannels(h, [C1]);
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listed(), { headers: rl() }).times(2);
    await h.run(importPayload(h, FILE));
    const { confirm } = previewButtons(h);
    const first = h.run(buttonPress(confirm, {}, MessageFlags.Ephemeral));
    await new Promise((resolve) => setTimeout(resolve, 150));
    await h.run(buttonPress(confirm, {}, MessageFlags.Ephemeral));
    await first;
    expect(h.discord.callbacks().at(-1)!.body).toEqual({ type: 6 });
    expect(report(h).embeds[0]!.description).toBe('3 created · 0 already present · 0 refused · 0 not attempted');
  });

  botTest('another import of the same server while one runs is refused, creates nothing, and its preview stays usable', async ({ bot: h }) => {
    createReplies(h, { a: { status: 201, body: created(11, 'a'), delayMs: 300 }, b: { status: 201, body: created(12, 'b') }, c: { status: 201, body: created(13, 'c') } });
    guildChannels(h, [C1]);
    // Two previews of the same file (each lists the feeds), then the first one's Import.
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listed(), { headers: rl() }).times(3);
    await h.run(importPayload(h, FILE));
    const first = previewButtons(h);
    await h.run(importPayload(h, FILE));
    const second = previewButtons(h);
    const running = h.run(buttonPress(first.confirm, {}, MessageFlags.Ephemeral));
    await new Promise((resolve) => setTimeout(resolve, 150));
    await h.run(buttonPress(second.confirm, {}, MessageFlags.Ephemeral));
    // A private reply of its own (not an update of the second preview, whose buttons stay).
    expect(h.discord.callbacks().at(-1)!.body).toMatchObject({
      type: 4,
      data: {
        flags: MessageFlags.Ephemeral,
        embeds: [{ description: 'Another import into this server is still running, so nothing was created. When it has finished, press Import again (until this preview expires).' }],
      },
    });
    await running;
    expect(report(h).embeds[0]!.description).toBe('3 created · 0 already present · 0 refused · 0 not attempted');
    // Pressed again once the first ended: it re-lists, finds every feed there, and creates nothing twice.
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listed([11, 'a'], [12, 'b'], [13, 'c']), { headers: rl() });
    await h.run(buttonPress(second.confirm, {}, MessageFlags.Ephemeral));
    expect(report(h).embeds[0]).toMatchObject({ title: 'Import finished', description: '0 created · 3 already present · 0 refused · 0 not attempted' });
    expect(h.agent.pendingInterceptors()).toEqual([]);
  });

  botTest('in Spanish; and an import that fails lets the next one run', async ({ bot: h }) => {
    const es = { locale: 'es-ES' } as const;
    guildChannels(h, [C1]);
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listed(), { headers: rl() }).times(2);
    // The first Import's list is slow, then refused: the import fails before creating anything.
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(401, {}, { headers: rl() }).delay(300);
    await h.run(importPayload(h, FILE, es));
    const first = previewButtons(h);
    await h.run(importPayload(h, FILE, es));
    const second = previewButtons(h);
    const failing = h.run(buttonPress(first.confirm, es, MessageFlags.Ephemeral));
    await new Promise((resolve) => setTimeout(resolve, 150));
    await h.run(buttonPress(second.confirm, es, MessageFlags.Ephemeral));
    expect(lastShown(h).embeds[0]!.description).toBe(
      'Otra importación en este servidor sigue en curso, así que no se creó nada. Cuando termine, vuelve a pulsar Importar (hasta que caduque esta vista previa).',
    );
    await failing;
    expect(lastShown(h).embeds[0]!.description).toContain('La clave de API');
    // Its hold went with it: the second preview imports now.
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listed(), { headers: rl() });
    createReplies(h, { a: { status: 201, body: created(11, 'a') }, b: { status: 201, body: created(12, 'b') }, c: { status: 201, body: created(13, 'c') } });
    await h.run(buttonPress(second.confirm, es, MessageFlags.Ephemeral));
    expect(report(h).embeds[0]).toMatchObject({ title: 'Importación terminada', description: '3 creados · 0 ya existían · 0 rechazados · 0 sin intentar' });
  });
});

describe('Import when an answer is lost', () => {
  botTest.override({ harness: { timeoutMs: 150 } });

  botTest('a create that timed out is looked for in the list, never sent again', async ({ bot: h }) => {
    createReplies(h, {
      a: { status: 201, body: created(11, 'a'), delayMs: 400 },
      b: { status: 201, body: created(12, 'b'), delayMs: 400 },
      c: { status: 201, body: created(13, 'c') },
    });
    guildChannels(h, [C1]);
    // The preview's list and Import's; then, after a's time-out, the list shows it; after b's it does not.
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listed(), { headers: rl() }).times(2);
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listed([11, 'a']), { headers: rl() }).times(2);
    await h.run(importPayload(h, FILE));
    await h.run(buttonPress(previewButtons(h).confirm, {}, MessageFlags.Ephemeral));
    const final = report(h);
    expect(final.embeds[0]!.description).toMatch(/^2 created · 0 already present · 1 refused · 0 not attempted/);
    expect(field(final, 'Created (2)')).toBe([`Row 1 · **@a** → <#${C1}> · Posts · #11`, `Row 3 · **@c** → <#${C1}> · Posts · #13`].join('\n'));
    expect(field(final, 'Refused (1)')).toBe(`Row 2 · **@b** → <#${C1}> · Posts: the API did not answer in time and the feed is not in the list: it was not created`);
    expect(h.logs.filter((l) => l.msg === 'import: a create may have reached the API; checking the list before going on')).toHaveLength(2);
  });
});

describe('Import and the request budget', () => {
  /** The harness clock runs `shift` ms ahead, so a reset a few seconds away comes in a few hundred ms. */
  let shift = 0;
  botTest.override({ harness: { now: () => Date.now() + shift } });

  /** A reset (unix seconds) that this clock reaches in about `inMs`. */
  function resetSoon(inMs: number): number {
    const reset = Math.floor(Date.now() / 1000) + 3;
    shift = reset * 1000 - Date.now() - inMs;
    return reset;
  }

  botTest.for(['a 429 from the API', 'a refusal of the local gate'])('after %s it waits for the reset, says so, and finishes', async (how, { bot: h }) => {
    const reset = resetSoon(900);
    const window = (remaining: number) => ({ 'content-type': 'application/json', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(reset) });
    const spent = window(0);
    if (how.startsWith('a 429')) {
      createReplies(h, { a: { status: 201, body: created(11, 'a') } });
      h.api.intercept({ path: '/v1/feeds', method: 'POST', body: forAccount('b') }).reply(429, {}, { headers: spent });
      createReplies(h, { b: { status: 201, body: created(12, 'b') }, c: { status: 201, body: created(13, 'c') } });
    } else {
      // The answer to `a` says the window is spent: `b` is refused here, before anything is sent.
      createReplies(h, { a: { status: 201, body: created(11, 'a'), headers: spent }, b: { status: 201, body: created(12, 'b') }, c: { status: 201, body: created(13, 'c') } });
    }
    const started = Date.now();
    await importFile(h, { headers: window(5) });
    const waiting = progress(h).find((m) => m.embeds[0]!.description!.includes('budget'));
    expect(waiting!.embeds[0]).toMatchObject({
      description: `1 of 3 created\n⏳ The feed API request budget is spent for this minute; continuing <t:${reset}:R>.`,
      color: 0xfee75c,
    });
    expect(report(h).embeds[0]).toMatchObject({ title: 'Import finished', description: '3 created · 0 already present · 0 refused · 0 not attempted' });
    const waitLine = h.logs.find((l) => l.msg === 'batch waits for the feed API budget to reset');
    expect(waitLine).toMatchObject({ step: '2', resetAt: new Date(reset * 1000).toISOString() });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  botTest('in Spanish, the wait is said in Spanish', async ({ bot: h }) => {
    const reset = resetSoon(600);
    const window = (remaining: number) => ({ 'content-type': 'application/json', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(reset) });
    createReplies(h, { a: { status: 201, body: created(11, 'a'), headers: window(0) }, b: { status: 201, body: created(12, 'b') }, c: { status: 201, body: created(13, 'c') } });
    await importFile(h, { headers: window(5), invoker: { locale: 'es-ES' } });
    const waiting = shown(h).find((m) => m.embeds[0]!.title === 'Importando feeds' && m.embeds[0]!.description!.includes('cupo'));
    expect(waiting!.embeds[0]).toMatchObject({
      title: 'Importando feeds',
      description: `1 de 3 creados\n⏳ Se ha agotado el cupo de peticiones a la API de feeds de este minuto; se continúa <t:${reset}:R>.`,
    });
    expect(report(h).embeds[0]).toMatchObject({ title: 'Importación terminada', description: '3 creados · 0 ya existían · 0 rechazados · 0 sin intentar' });
  });

  botTest('when the reset comes after the token dies, it stops cleanly and says what was not created', async ({ bot: h }) => {
    // Six minutes in: a reset 10 minutes away (the longest the client believes) is past the token's 15.
    shift = 6 * 60_000;
    const late = Math.floor((Date.now() + shift) / 1000) + 10 * 60;
    createReplies(h, { a: { status: 201, body: created(11, 'a') } });
    h.api.intercept({ path: '/v1/feeds', method: 'POST', body: forAccount('b') }).reply(429, {}, {
      headers: { 'content-type': 'application/json', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(late) },
    });
    await importFile(h);
    const final = report(h);
    expect(final.embeds[0]!.title).toBe('Import incomplete');
    expect(final.embeds[0]!.description).toBe(
      [
        '1 created · 0 already present · 0 refused · 2 not attempted',
        `Stopped: the request budget resets <t:${late}:R>, after this interaction's 15 minutes run out.`,
        'Run `/feed import` again with the same file to import the rest: feeds already there are skipped.',
      ].join('\n'),
    );
    expect(field(final, 'Not attempted (2)')).toBe([`Row 2 · **@b** → <#${C1}> · Posts`, `Row 3 · **@c** → <#${C1}> · Posts`].join('\n'));
  });

  botTest('too close to the deadline, it creates nothing and says why', async ({ bot: h }) => {
    // Our clock says 14.5 minutes have passed since Discord created the (button) interaction.
    shift = 14.5 * 60_000;
    await importFile(h);
    const final = report(h);
    expect(final.embeds[0]!.description).toBe(
      [
        '0 created · 0 already present · 0 refused · 3 not attempted',
        "Stopped before this interaction's 15 minutes ran out.",
        'Run `/feed import` again with the same file to import the rest: feeds already there are skipped.',
      ].join('\n'),
    );
  });
});
