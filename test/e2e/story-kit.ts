/**
 * What the end-to-end stories (audit.test.ts, transfer.test.ts) share: one Stack (real bot
 * process, Discord emulator, HTTPS sandbox) whose guilds each story owns alone, so the English and
 * the Spanish run never see each other's feeds, keys, budget or audit channel; the users who act
 * in them; and the checks every story ends with (no secret reached Discord or a log line).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { APIEmbed, APIMessage } from 'discord-api-types/v10';
import { SCOPES } from '@feedbot/feed-api-contract';
import { Stack, type StackOptions } from '@feedbot/playground';
import type { InteractionHandle, InteractionInput, InteractionSnapshot, Violation } from '@feedbot/discord-emulator';
import { silentLogger } from '../../src/logger.js';
import { POLL_MS, actor, answered, messageWhen, text, type Answer, type Expected, type StoryGuild, type Transport } from '../kit/story-guilds.js';

export * from '../kit/story-guilds.js';

/** A stack of its own for one file and transport, with `guilds` and the commands deployed globally. */
export class StoryStack {
  /** Every API key a story handed out: none may reach Discord or a log line. */
  readonly keys = new Set<string>();
  /** The latest key generated for each guild. */
  private readonly latest = new Map<string, string>();

  /** `start` makes one; a stack started elsewhere (replicas.test.ts) is wrapped as is and closed by its caller. */
  constructor(
    readonly stack: Stack,
    private readonly dir: string,
  ) {}

  static async start(transport: Transport, guilds: readonly StoryGuild[], opts: Pick<StackOptions, 'rateLimit' | 'botEnv'> = {}): Promise<StoryStack> {
    const dir = mkdtempSync(join(tmpdir(), 'feedbot-e2e-stories-'));
    const stack = await Stack.start({ dataDir: dir, logger: silentLogger(), extraGuilds: guilds.map((g) => g.guild), transport, ...opts });
    const story = new StoryStack(stack, dir);
    try {
      for (const g of guilds) await stack.sandbox.admin.createServer(g.id, 'server');
      // Global, as in production: every guild of the stack gets the commands.
      await stack.deployCommands({ global: true });
      await stack.startBot();
    } catch (error) {
      await story.close();
      throw error;
    }
    return story;
  }

  get emulator() {
    return this.stack.emulator;
  }

  get sandbox() {
    return this.stack.sandbox;
  }

  async close(): Promise<void> {
    await this.stack.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** A new key for the guild (as its owner does in the dashboard): the previous one stops working. */
  async newKey(g: StoryGuild): Promise<string> {
    const key = await this.sandbox.admin.generateKey(g.id, [...SCOPES]);
    this.keys.add(key);
    this.latest.set(g.id, key);
    return key;
  }

  /** The guild's current key (the latest newKey), for requests made as the key's owner's other tools. */
  currentKey(g: StoryGuild): string {
    const key = this.latest.get(g.id);
    if (!key) throw new Error(`no key was generated for guild ${g.id}`);
    return key;
  }

  async send(input: InteractionInput, timeoutMs = 15_000): Promise<InteractionSnapshot> {
    return this.emulator.sendInteraction(input).waitForFinal({ timeoutMs });
  }

  /** `/feed <sub>` (or any command) as `who`, answered: its last message. */
  async command(g: StoryGuild, who: 'admin' | 'crew' | 'member', commandName: string, sub: string, options: Record<string, string | number | boolean> = {}, extra: Partial<InteractionInput> = {}): Promise<APIMessage> {
    // 'group sub', 'sub', or '' for a command without subcommands.
    const [group, subcommand] = sub.includes(' ') ? sub.split(' ') : [undefined, sub || undefined];
    const names = { ...(group ? { subcommandGroup: group } : {}), ...(subcommand ? { subcommand } : {}) };
    const sent = await this.send({ type: 'command', commandName, ...names, options, ...actor(g, who), ...extra } as InteractionInput);
    // Settled is not answered: a failure after a public "thinking…" deletes it, then follows up.
    return messageWhen(this.emulator, sent.id, answered, { what: `the answer to /${commandName} ${sub}` });
  }

  /** /apikey set through its modal, as the guild's admin. */
  async setKey(g: StoryGuild, key: string): Promise<APIMessage> {
    this.keys.add(key);
    const opened = await this.emulator.sendInteraction({ type: 'command', commandName: 'apikey', subcommand: 'set', ...actor(g, 'admin') }).waitForAck();
    expect(opened.ack?.type).toBe(9);
    const submitted = this.emulator.submitModal({ interactionId: opened.id, values: { key }, ...actor(g, 'admin') });
    await submitted.waitForFinal({ timeoutMs: 15_000 });
    return messageWhen(this.emulator, submitted.id, answered, { what: 'the answer to /apikey set' });
  }

  /**
   * Presses the button labelled `label` on `message` as `who`; resolves with the pressed
   * interaction, settled: at its first answer, which for a batch is its progress, not its report
   * (read that with pressFor).
   */
  async press(g: StoryGuild, who: 'admin' | 'crew' | 'member', message: APIMessage, label: string, timeoutMs = 15_000): Promise<InteractionSnapshot> {
    return this.pressButton(g, who, message, label).waitForFinal({ timeoutMs });
  }

  /**
   * Presses the button labelled `label` on `message` as `who` and waits, bounded, until the
   * message shows what the story asserts (`expected`: the edit a batch ends with, or the one
   * answer of a single delete); fails at the deadline with the last message seen.
   */
  async pressFor(g: StoryGuild, who: 'admin' | 'crew' | 'member', message: APIMessage, label: string, expected: Expected, timeoutMs = 15_000): Promise<APIMessage> {
    const pressed = this.pressButton(g, who, message, label);
    return messageWhen(this.emulator, pressed.id, expected, { timeoutMs, what: `after "${label}", the expected message` });
  }

  /**
   * Like pressFor, with how the press was acknowledged: 7 when it edited the message it was on,
   * 4 (or 5, deferred) when it answered with a message of its own.
   */
  async pressAnswer(g: StoryGuild, who: 'admin' | 'crew' | 'member', message: APIMessage, label: string, expected: Expected, timeoutMs = 15_000): Promise<Answer> {
    const pressed = this.pressButton(g, who, message, label);
    const answer = await messageWhen(this.emulator, pressed.id, expected, { timeoutMs, what: `after "${label}", the expected message` });
    return { message: answer, ack: pressed.snapshot().ack?.type };
  }

  /**
   * Picks `values` in the select whose placeholder is `placeholder` on `message` as `who` (the
   * emulator refuses what the client would not let them pick) and waits, bounded, until the
   * answer shows what the story asserts; with how the pick was acknowledged (see pressAnswer).
   */
  async pickFor(g: StoryGuild, who: 'admin' | 'crew' | 'member', message: APIMessage, placeholder: string, values: string[], expected: Expected, timeoutMs = 15_000): Promise<Answer> {
    const selects = (message.components ?? []).flatMap((row) => ('components' in row ? (row.components as { type: number; custom_id?: string; placeholder?: string }[]) : []));
    const select = selects.find((c) => c.placeholder === placeholder && c.custom_id);
    if (!select?.custom_id) throw new Error(`no select "${placeholder}" on message ${message.id}: ${JSON.stringify(selects.map((c) => c.placeholder))}`);
    const picked = this.emulator.selectMenu({ messageId: message.id, customId: select.custom_id, values, ...actor(g, who) });
    const answer = await messageWhen(this.emulator, picked.id, expected, { timeoutMs, what: `after picking ${JSON.stringify(values)} in "${placeholder}", the expected message` });
    return { message: answer, ack: picked.snapshot().ack?.type };
  }

  /** Feed API requests the sandbox has answered for the guild's keys so far (an action that must cost none compares two). */
  upstreamRequests(g: StoryGuild): number {
    return this.sandbox.requests.total(g.id);
  }

  private pressButton(g: StoryGuild, who: 'admin' | 'crew' | 'member', message: APIMessage, label: string): InteractionHandle {
    const buttons = (message.components ?? []).flatMap((row) => ('components' in row ? (row.components as { custom_id?: string; label?: string }[]) : []));
    const button = buttons.find((b) => b.label === label);
    if (!button?.custom_id) throw new Error(`no button "${label}" on message ${message.id}: ${JSON.stringify(buttons.map((b) => b.label))}`);
    return this.emulator.pressButton({ messageId: message.id, customId: button.custom_id, ...actor(g, who) });
  }

  /** What the bot posted in a channel (not interaction answers), oldest first. */
  posts(channelId: string): APIMessage[] {
    return this.emulator.messages({ channelId });
  }

  /**
   * The embeds posted in a channel, oldest first: one per audit event, whether each went out in
   * a message of its own or with others that piled up meanwhile (src/audit/trail.ts).
   */
  embeds(channelId: string): APIEmbed[] {
    return this.posts(channelId).flatMap((p) => p.embeds);
  }

  /**
   * Waits, bounded, until the channel holds `count` embeds, then for `quietMs` more to be sure no
   * other one follows. That pause is no wait for a state: it looks for a post that should NOT
   * come, which no poll can prove; a late one is caught by the next expectEmbeds' exact count.
   */
  async expectEmbeds(channelId: string, count: number, opts: { timeoutMs?: number; quietMs?: number } = {}): Promise<APIEmbed[]> {
    const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
    while (this.embeds(channelId).length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, POLL_MS));
    if (this.embeds(channelId).length >= count) await new Promise((r) => setTimeout(r, opts.quietMs ?? 200));
    const embeds = this.embeds(channelId);
    // On a failure, the titles seen (too few at the deadline, or one too many).
    expect(embeds.map((e) => e.title), `embeds in channel ${channelId}`).toHaveLength(count);
    return embeds;
  }

  /** The created feed's id, from /feed create's answer (`#12` in its first field). */
  static createdId(answer: APIMessage): number {
    const id = /#(\d+)/.exec(answer.embeds[0]?.fields?.[0]?.value ?? '')?.[1];
    if (!id) throw new Error(`not a created feed: ${text(answer)}`);
    return Number(id);
  }

  /** No key handed out in this stack appears in anything the bot sent to Discord or logged. */
  expectNoSecretLeaked(): void {
    const sent = JSON.stringify(this.emulator.calls.map((c) => [c.path, c.body, c.response]));
    const logged = JSON.stringify(this.stack.bot?.lines ?? []) + (this.stack.bot?.stderr ?? []).join('');
    const shown = JSON.stringify(this.emulator.messages());
    expect(this.keys.size).toBeGreaterThan(0);
    for (const key of this.keys) {
      expect(sent.includes(key), 'a key in a REST call to Discord').toBe(false);
      expect(shown.includes(key), 'a key in a message').toBe(false);
      expect(logged.includes(key), 'a key in a log line').toBe(false);
    }
  }

  /** Nothing the bot sent was refused by the emulator as Discord would refuse it, but what a story caused on purpose. */
  expectNoViolations(expected: (v: Violation) => boolean = () => false): void {
    expect(this.emulator.violations.filter((v) => !expected(v)).map((v) => `${v.kind} ${v.code} ${v.method ?? ''} ${v.route} ${v.message}`)).toEqual([]);
  }
}
