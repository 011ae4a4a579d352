/**
 * The storm's users: in each server an admin, a feed manager (crew) and a member act at random
 * through the emulator as Discord clients would — commands, the list's panel, the feed card, the
 * create form, "Feed of this post", confirmations, settings, the digest, the key's modal, exports,
 * imports, bulk deletes, bursts, forgetting — and every interaction
 * they send, with what it ended as, goes to the ledger. An actor never throws: whatever the
 * system does, the storm goes on and the ledger judges.
 */
import type { APIMessage } from 'discord-api-types/v10';
import { SCOPES } from '@feedbot/feed-api-contract';
import { NoGatewaySessionError, isSettled, type DiscordEmulator, type InteractionHandle, type InteractionInput, type InteractionSnapshot } from '@feedbot/discord-emulator';
import type { RunningSandbox } from '@feedbot/sandbox';
import { translator } from '../../src/i18n/index.js';
import { actor, messagesOf, type StoryGuild } from '../kit/story-guilds.js';
import { exportFile } from '../e2e/transfer-kit.js';
import type { CreateClaim, DeleteClaim, Delivery, WriteOutcome } from './ledger.js';

type Who = 'admin' | 'crew' | 'member';
const LOADING = 1 << 7;
/** How long an actor waits for an interaction's final answer: past any retry the bot makes. */
const ANSWER_WAIT_MS = 30_000;

export interface Ledger {
  deliveries: Delivery[];
  creates: CreateClaim[];
  deletes: DeleteClaim[];
  /** Every API key handed out: none may appear in a log. */
  keys: Set<string>;
  /** Guilds whose data a confirmed forget deleted (and whose key was set again after). */
  forgets: number;
  /** Feeds the service paused (a change the sweeps report). */
  paused: Set<string>;
  /** Interactions no session could take (its shard was identifying): Discord would not deliver them either. */
  undelivered: number;
  /** Per guild, forgets confirmed or maybe done: each may rightly let one more weekly digest through. */
  forgetPresses: Map<string, number>;
  /** Guilds whose weekly digest is set to be due at once (a forget unsets it). */
  digestsDue: Set<string>;
  /** Times a digest was set due. */
  digestSets: number;
}

export function newLedger(): Ledger {
  return { deliveries: [], creates: [], deletes: [], keys: new Set(), forgets: 0, paused: new Set(), undelivered: 0, forgetPresses: new Map(), digestsDue: new Set(), digestSets: 0 };
}

export const ACTIONS = [
  'list',
  'stats',
  'posts',
  'create',
  'createForm',
  'delete',
  'bulkDelete',
  'panel',
  'card',
  'ofPost',
  'apikey',
  'export',
  'import',
  'burst',
  'pause',
  'settings',
  'digest',
  'forget',
] as const;
export type Action = (typeof ACTIONS)[number];
const WEIGHTS: Record<Action, number> = {
  list: 14,
  stats: 12,
  posts: 8,
  create: 10,
  createForm: 5,
  delete: 9,
  bulkDelete: 2,
  panel: 7,
  card: 6,
  ofPost: 3,
  apikey: 4,
  export: 3,
  import: 2,
  burst: 2,
  pause: 3,
  settings: 3,
  digest: 2,
  forget: 1,
};

export function pickAction(random: () => number): Action {
  const total = ACTIONS.reduce((n, a) => n + WEIGHTS[a], 0);
  let roll = random() * total;
  for (const a of ACTIONS) {
    roll -= WEIGHTS[a];
    if (roll < 0) return a;
  }
  return 'list';
}

const title = (m: APIMessage | undefined) => m?.embeds[0]?.title ?? '';
/** The message command's name as registered (its English name; clients show it localized). */
const FEED_OF_POST = translator('en')('cmd.feedOfPost.name');

export class GuildActors {
  /** Feeds this guild's creates reported done and no delete reported done yet. */
  private readonly live = new Map<number, string>();
  private creates = 0;

  constructor(
    private readonly g: StoryGuild,
    private readonly emulator: DiscordEmulator,
    private readonly sandbox: RunningSandbox,
    private readonly ledger: Ledger,
    private readonly random: () => number,
    private readonly seed: number,
  ) {}

  /** Sets a new key through /apikey set's modal, and the audit channel; the storm's starting state. */
  async setUp(): Promise<void> {
    await this.setKey();
    await this.command('settings', 'admin', 'feedbot', 'audit-channel set', { canal: this.g.channels.audit });
  }

  /**
   * As an admin does once things are calm: if the server has no key (a forget, then a key set
   * that failed during the faults), or the bot holds one the service no longer knows (a key made
   * for a set whose modal failed replaces the old one there), set one again. Resolves with whether it had to.
   */
  async ensureKey(): Promise<boolean> {
    const status = await this.command('apikey', 'admin', 'apikey', 'status');
    const shown = status.final?.embeds[0]?.fields?.find((f) => f.name === this.g.t('apikey.status.key'))?.value;
    const current = await this.sandbox.admin.describeKey(this.g.id);
    if (shown && current && shown.replaceAll('`', '').endsWith(current.last4)) return false;
    await this.setUp();
    return true;
  }

  async act(action: Action): Promise<void> {
    const g = this.g;
    switch (action) {
      case 'list':
        return void (await this.command(action, this.who(), 'feed', 'list'));
      case 'stats':
        return void (await this.command(action, this.who(), 'stats', ''));
      case 'posts': {
        const id = this.someFeed();
        if (id === undefined) return;
        return void (await this.command(action, 'member', 'feed', 'posts', { id }));
      }
      case 'create':
        return this.create();
      case 'createForm':
        return this.createThroughForm();
      case 'delete':
        return this.delete();
      case 'bulkDelete':
        return this.bulkDelete();
      case 'import':
        return this.import();
      case 'ofPost': {
        // A member right-clicks a chat line: no post link in it, so the private explanation.
        const said = this.emulator.postMessage({ channelId: g.channels.media, author: { id: actor(g, 'member').userId!, username: 'storm_member' }, content: 'nice one!' });
        return void (await this.track(action, () => this.emulator.runMessageCommand({ commandName: FEED_OF_POST, messageId: said.id, ...actor(g, 'member') })));
      }
      case 'digest': {
        if (this.ledger.digestsDue.has(g.id)) return void (await this.command(action, 'admin', 'feedbot', `digest ${this.random() < 0.5 ? 'status' : 'preview'}`));
        // Set for this UTC day and hour: due at once, so the sweeps post it during the storm.
        const now = new Date();
        const set = await this.command(action, 'admin', 'feedbot', 'digest set', { dia: (now.getUTCDay() + 6) % 7, hora: now.getUTCHours() });
        if (set.final) {
          this.ledger.digestsDue.add(g.id);
          this.ledger.digestSets++;
        }
        return;
      }
      case 'panel': {
        const panel = await this.command(action, 'member', 'feed', 'list');
        if (panel.final) await this.press(action, 'member', panel.final, g.t('panel.problems.off'));
        return;
      }
      case 'card': {
        const id = this.someFeed();
        const panel = await this.command(action, 'admin', 'feed', 'list');
        if (id !== undefined && panel.final) await this.pick(action, 'admin', panel.final, g.t('panel.manage.placeholder'), [String(id)]);
        return;
      }
      case 'apikey':
        return void (await this.command(action, 'admin', 'apikey', 'status'));
      case 'export':
        return void (await this.command(action, 'admin', 'feed', 'export'));
      case 'burst':
        await Promise.all(Array.from({ length: 6 }, () => this.command(action, 'member', 'stats', '')));
        return;
      case 'pause': {
        const id = this.someFeed();
        if (id === undefined || this.ledger.paused.has(`${g.id}/${id}`)) return;
        // The service pauses a feed (its dashboard, not the bot): a change the sweeps report once.
        await this.sandbox.admin.pauseFeed(g.id, id).catch(() => undefined);
        this.ledger.paused.add(`${g.id}/${id}`);
        return;
      }
      case 'settings':
        return void (await this.command(action, 'admin', 'feedbot', 'audit-channel set', { canal: g.channels.audit }));
      case 'forget': {
        const asked = await this.command(action, 'admin', 'feedbot', 'forget');
        if (!asked.final || title(asked.final) !== g.t('forget.title')) return;
        const done = await this.press(action, 'admin', asked.final, g.t('forget.button.delete'));
        if (done) this.ledger.forgetPresses.set(g.id, (this.ledger.forgetPresses.get(g.id) ?? 0) + 1);
        // A forget deletes the digest's schedule too: the admin sets it again later.
        if (done) this.ledger.digestsDue.delete(g.id);
        if (title(done?.final) === g.t('forget.done.title')) this.ledger.forgets++;
        // The admin sets things up again, as after any forget.
        await this.setUp();
        return;
      }
    }
  }

  private who(): Who {
    const r = this.random();
    return r < 0.2 ? 'admin' : r < 0.5 ? 'crew' : 'member';
  }

  private someFeed(): number | undefined {
    const ids = [...this.live.keys()];
    return ids.length === 0 ? undefined : ids[Math.floor(this.random() * ids.length)];
  }

  private async create(): Promise<void> {
    const g = this.g;
    const account = `s${this.seed}.${g.lang}${g.id.slice(-3)}.${++this.creates}`;
    const d = await this.command('create', this.random() < 0.5 ? 'admin' : 'crew', 'feed', 'create', { cuenta: account, canal: g.channels.media, tipos: 'post' });
    this.recordCreate(d, account);
  }

  private async delete(): Promise<void> {
    const g = this.g;
    const id = this.someFeed();
    if (id === undefined) return;
    const asked = await this.command('delete', 'admin', 'feed', 'delete', { id });
    if (!asked.final || title(asked.final) !== g.t('delete.confirm.title', { id })) return;
    const done = await this.press('delete', 'admin', asked.final, g.t('delete.button.confirm'));
    if (!done) return;
    const outcome = this.outcomeOf(done, g.t('delete.done.title'), g.t('delete.unconfirmed', { id }));
    if (outcome === 'done') this.live.delete(id);
    const told = done.final ? (done.final.embeds[0]?.description ?? done.final.content).slice(0, 160) : undefined;
    this.ledger.deletes.push({ guildId: g.id, id, outcome, ...(told ? { told } : {}), interactionId: done.snapshot.id, at: done.sentAt });
  }

  /** /feed create with the account only: the form, submitted with a channel and a kind. */
  private async createThroughForm(): Promise<void> {
    const g = this.g;
    const account = `s${this.seed}.${g.lang}${g.id.slice(-3)}.${++this.creates}`;
    const who = this.random() < 0.5 ? 'admin' : 'crew';
    const opened = await this.command('createForm', who, 'feed', 'create', { cuenta: account });
    if (opened.snapshot.ack?.type !== 9) return;
    const values = { cuenta: account, canal: [g.channels.media], tipos: ['post'] };
    const d = await this.track('createForm', () => this.emulator.submitModal({ interactionId: opened.snapshot.id, values, ...actor(g, who) }));
    this.recordCreate(d, account);
  }

  /** /feed delete problemas:true: the feeds with a warning (paused ones among them), confirmed. */
  private async bulkDelete(): Promise<void> {
    const g = this.g;
    const asked = await this.command('bulkDelete', 'admin', 'feed', 'delete', { problemas: true });
    const question = asked.final;
    const count = Number(/(\d+)/.exec(title(question))?.[1]);
    if (!question || !Number.isInteger(count) || title(question) !== g.t('bulkDelete.confirm.title', { count })) return;
    // The ids the question names, not its channel mentions (a long list ends in "…and N more": those are not judged).
    const ids = [...new Set([...(question.embeds[0]?.description ?? '').matchAll(/(?<!<)#(\d+)/g)].map((m) => Number(m[1])))];
    const done = await this.press('bulkDelete', 'admin', question, g.t('bulkDelete.button.confirm', { count }));
    if (!done) return;
    const said = title(done.final);
    // Still "Deleting feeds" when the actor stops watching (the run waits for the key's window):
    // the user has not been told how it ended, so it may go either way.
    const underWay = said === g.t('bulkDelete.progress.title') || said === g.t('bulkDelete.report.title.incomplete') || !done.final;
    const outcome: WriteOutcome = said === g.t('bulkDelete.report.title') ? 'done' : underWay ? 'check' : 'refused';
    for (const id of ids) {
      if (outcome === 'done') this.live.delete(id);
      this.ledger.deletes.push({ guildId: g.id, id, outcome, ...(said ? { told: said } : {}), interactionId: done.snapshot.id, at: done.sentAt });
    }
  }

  /**
   * /feed import of a file of new accounts, confirmed. Each account is judged only for being
   * created at most once: the report counts rows, not ids, so no row is "reported done as #id".
   */
  private async import(): Promise<void> {
    const g = this.g;
    const accounts = [1, 2].map(() => `s${this.seed}.${g.lang}${g.id.slice(-3)}.${++this.creates}`);
    const file = this.emulator.uploadAttachment({ filename: 'feeds.json', data: exportFile(g, accounts.map((cuenta) => ({ cuenta, canal: g.channels.media }))), contentType: 'application/json' });
    const preview = await this.command('import', 'admin', 'feed', 'import', { archivo: file.id });
    if (!preview.final) return;
    const done = await this.press('import', 'admin', preview.final, g.t('import.button.confirm', { count: accounts.length }));
    if (!done) return;
    for (const account of accounts) this.ledger.creates.push({ guildId: g.id, account, outcome: 'check', interactionId: done.snapshot.id, at: done.sentAt });
  }

  private recordCreate(d: Delivery, account: string): void {
    const g = this.g;
    const outcome = this.outcomeOf(d, g.t('create.title'), g.t('create.unconfirmed', { cuenta: account }));
    const id = outcome === 'done' ? Number(/#(\d+)/.exec(d.final?.embeds[0]?.fields?.[0]?.value ?? '')?.[1]) : undefined;
    if (id !== undefined && Number.isInteger(id)) this.live.set(id, account);
    this.ledger.creates.push({ guildId: g.id, account, outcome, ...(id !== undefined ? { id } : {}), interactionId: d.snapshot.id, at: d.sentAt });
  }

  /** What the user was told: done (the success title), check (told it may have happened and to look), refused, or nothing. */
  private outcomeOf(d: Delivery, doneTitle: string, checkText?: string): WriteOutcome {
    if (!d.final) return 'unanswered';
    if (title(d.final) === doneTitle) return 'done';
    const said = JSON.stringify([d.final.content, d.final.embeds.map((e) => e.description)]);
    return checkText !== undefined && said.includes(JSON.stringify(checkText).slice(1, -1)) ? 'check' : 'refused';
  }

  private async setKey(): Promise<void> {
    const key = await this.sandbox.admin.generateKey(this.g.id, [...SCOPES]);
    this.ledger.keys.add(key);
    const opened = await this.interact('apikey', { type: 'command', commandName: 'apikey', subcommand: 'set', ...actor(this.g, 'admin') });
    if (opened.snapshot.ack?.type !== 9) return;
    await this.track('apikey', () => this.emulator.submitModal({ interactionId: opened.snapshot.id, values: { key }, ...actor(this.g, 'admin') }));
  }

  private command(action: Action, who: Who, commandName: string, sub: string, options: Record<string, string | number | boolean> = {}): Promise<Delivery> {
    const [group, subcommand] = sub.includes(' ') ? sub.split(' ') : [undefined, sub || undefined];
    const names = { ...(group ? { subcommandGroup: group } : {}), ...(subcommand ? { subcommand } : {}) };
    return this.interact(action, { type: 'command', commandName, ...names, options, ...actor(this.g, who) } as InteractionInput);
  }

  private async press(action: Action, who: Who, message: APIMessage, label: string): Promise<Delivery | undefined> {
    const buttons = (message.components ?? []).flatMap((row) => ('components' in row ? (row.components as { custom_id?: string; label?: string }[]) : []));
    const button = buttons.find((b) => b.label === label && b.custom_id);
    if (!button?.custom_id) return undefined;
    const customId = button.custom_id;
    return this.track(action, () => this.emulator.pressButton({ messageId: message.id, customId, ...actor(this.g, who) }));
  }

  private async pick(action: Action, who: Who, message: APIMessage, placeholder: string, values: string[]): Promise<Delivery | undefined> {
    const selects = (message.components ?? []).flatMap((row) => ('components' in row ? (row.components as { custom_id?: string; placeholder?: string; options?: { value: string }[] }[]) : []));
    const select = selects.find((c) => c.placeholder === placeholder && c.custom_id);
    if (!select?.custom_id || !values.every((v) => select.options?.some((o) => o.value === v))) return undefined;
    const customId = select.custom_id;
    return this.track(action, () => this.emulator.selectMenu({ messageId: message.id, customId, values, ...actor(this.g, who) }));
  }

  private interact(action: Action, input: InteractionInput): Promise<Delivery> {
    return this.track(action, () => this.emulator.sendInteraction(input));
  }

  /** Waits, bounded, for the interaction's last message to stop being "thinking…", and records it. */
  private async track(action: Action, send: () => InteractionHandle): Promise<Delivery> {
    const sentAt = Date.now();
    let handle: InteractionHandle;
    try {
      handle = send();
    } catch (error) {
      if (!(error instanceof NoGatewaySessionError)) throw error;
      this.ledger.undelivered++;
      const snapshot = { id: 'undelivered', state: 'expired', callbacks: 0, dispatchedTo: [], ack: null, errors: [] } as unknown as InteractionSnapshot;
      return { action, guildId: this.g.id, sentAt, snapshot, final: undefined };
    }
    const deadline = sentAt + ANSWER_WAIT_MS;
    let snapshot = handle.snapshot();
    let final: APIMessage | undefined;
    for (;;) {
      snapshot = this.emulator.snapshotOf(snapshot.id);
      const last = messagesOf(snapshot).at(-1);
      // The emulator's own rule (a deferred update is settled only once its message is edited
      // after the ack), and the last message is not "thinking…".
      const settled = isSettled(snapshot) && (snapshot.ack?.type === 9 || (last !== undefined && ((last.flags ?? 0) & LOADING) === 0));
      if (settled) final = snapshot.ack?.type === 9 ? undefined : last;
      // Quiet for a moment once answered: a batch or a deferred reply may still be edited.
      if ((settled && Date.now() - snapshot.createdAt > 300) || snapshot.state === 'expired' || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const delivery: Delivery = { action, guildId: this.g.id, sentAt, snapshot, final };
    this.ledger.deliveries.push(delivery);
    return delivery;
  }
}
