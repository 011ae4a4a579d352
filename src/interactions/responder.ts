/**
 * Answers one interaction within Discord's 3-second deadline.
 *
 * The fast path answers in a single call (reply/update). If the answer is not ready by the
 * deferral point, the responder acknowledges first (deferReply / deferUpdate) and edits later,
 * so a slow API never costs the interaction. Whether a deferred reply is ephemeral is fixed when
 * it is deferred, so the caller says up front what its answer will be; an error after a public
 * deferral replaces the placeholder with an ephemeral follow-up. A modal must be the first
 * answer: in `modal` mode nothing is deferred, and in the others showModal() works until the
 * deferral point.
 */
import {
  MessageFlags,
  type APIActionRowComponent,
  type APIComponentInMessageActionRow,
  type APIEmbed,
  type AnySelectMenuInteraction,
  type AttachmentPayload,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type MessageContextMenuCommandInteraction,
  type MessageMentionOptions,
  type ModalMessageModalSubmitInteraction,
  type ModalSubmitInteraction,
} from 'discord.js';
import type { AnswerMode } from './command.js';

export type RepliableInteraction =
  | ChatInputCommandInteraction
  | MessageContextMenuCommandInteraction
  | ButtonInteraction
  | AnySelectMenuInteraction
  | ModalSubmitInteraction;

/**
 * A modal: a ModalBuilder, or the raw API object (type 9's data) for components the builders lack
 * (checkbox groups, selects in Labels on older builders).
 */
type ModalPayload = Parameters<ButtonInteraction['showModal']>[0];

export interface ReplyPayload {
  content?: string;
  embeds?: APIEmbed[];
  components?: APIActionRowComponent<APIComponentInMessageActionRow>[];
  /** Files to attach (sent with an edit: see `send`). */
  files?: AttachmentPayload[];
  /** Who the answer may ping; `{ parse: [] }` for answers that show role or user mentions. */
  allowedMentions?: MessageMentionOptions;
}

interface ResponderOptions {
  /**
   * `reply` creates a message; `update` edits the message a component is on (type 7, deferral 6);
   * `modal`: the answer is a modal, so the deferral clock is never armed.
   */
  mode: AnswerMode;
  /** Whether the successful answer is ephemeral (decides the deferral's flags). */
  ephemeral: boolean;
  /** Acknowledge after this long without an answer. */
  deferAfterMs: number;
  now?: () => number;
}

/** Default deferral point: well inside 3 s, leaving room for the deferral's own round trip. */
export const DEFAULT_DEFER_AFTER_MS = 1_500;
/** Never let the deferral land later than this after Discord created the interaction. */
const LATEST_DEFER_AFTER_CREATION_MS = 2_200;
/** Beyond this skew between our clock and the snowflake's, the creation time is not trusted. */
const MAX_TRUSTED_SKEW_MS = 10_000;
/** Discord forgets an interaction not acknowledged this long after creating it (then: 10062). */
const ACK_DEADLINE_MS = 3_000;

/**
 * How long ago Discord created the interaction, by our clock; undefined when the two clocks
 * disagree too much for the snowflake's time to mean anything.
 */
function ageSinceCreation(createdTimestamp: number, now: number): number | undefined {
  const age = now - createdTimestamp;
  return age >= 0 && age < MAX_TRUSTED_SKEW_MS ? age : undefined;
}

/**
 * Whether Discord's deadline was missed: nothing acknowledged, or acknowledged more than 3 s after
 * creation (after `receivedAt` instead when the creation time was not trusted on receipt).
 */
export function missedAckDeadline(createdTimestamp: number, receivedAt: number, acknowledgedAt: number | undefined): boolean {
  if (acknowledgedAt === undefined) return true;
  const start = ageSinceCreation(createdTimestamp, receivedAt) === undefined ? receivedAt : createdTimestamp;
  return acknowledgedAt - start > ACK_DEADLINE_MS;
}

type State = 'pending' | 'deferring' | 'deferred' | 'answered';

export class Responder {
  private state: State = 'pending';
  private deferral: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private deferredEphemeral = false;
  /** When the acknowledgement was sent (ms since epoch); for logs, metrics and benchmarks. */
  acknowledgedAt: number | undefined;
  deferred = false;

  constructor(
    private readonly interaction: RepliableInteraction,
    private readonly opts: ResponderOptions,
  ) {}

  /** Start the deferral clock (not for a modal: a deferral would forbid it). */
  arm(): void {
    if (this.opts.mode === 'modal') return;
    const now = (this.opts.now ?? Date.now)();
    let delay = this.opts.deferAfterMs;
    const age = ageSinceCreation(this.interaction.createdTimestamp, now);
    if (age !== undefined && age > 0) delay = Math.min(delay, LATEST_DEFER_AFTER_CREATION_MS - age);
    this.timer = setTimeout(() => void this.defer().catch(() => undefined), Math.max(0, delay));
    this.timer.unref?.();
  }

  get acknowledged(): boolean {
    return this.state !== 'pending';
  }

  /** Acknowledge now, if nothing has been sent yet. */
  defer(): Promise<void> {
    this.clearTimer();
    if (this.state !== 'pending') return this.deferral ?? Promise.resolve();
    this.state = 'deferring';
    this.deferredEphemeral = this.opts.ephemeral;
    const i = this.interaction;
    const sent = this.updates(i) ? i.deferUpdate() : i.deferReply(this.opts.ephemeral ? { flags: MessageFlags.Ephemeral } : {});
    this.deferral = sent.then(
      () => {
        this.markAcknowledged();
        this.state = 'deferred';
        this.deferred = true;
      },
      (error: unknown) => {
        this.state = 'pending';
        throw error;
      },
    );
    return this.deferral;
  }

  /** Show a modal. It must be the first response, so this only works before anything else. */
  async showModal(modal: ModalPayload): Promise<void> {
    this.clearTimer();
    if (this.state !== 'pending') throw new Error('A modal must be the first response to an interaction');
    const i = this.interaction;
    if (i.isModalSubmit()) throw new Error('A modal cannot answer a modal submission');
    this.state = 'answered';
    await i.showModal(modal);
    this.markAcknowledged();
  }

  /**
   * The successful answer. Files never travel in the first response: in HTTP-interactions mode
   * that answer is the body of Discord's POST and would have to be multipart, so the interaction
   * is acknowledged first and the files are sent with the edit, in both modes alike.
   */
  async send(payload: ReplyPayload): Promise<void> {
    this.clearTimer();
    const i = this.interaction;
    if (this.state === 'pending' && (payload.files?.length ?? 0) > 0) await this.defer();
    if (this.state === 'pending') {
      this.state = 'answered';
      if (this.updates(i)) await i.update(payload);
      else await i.reply({ ...payload, flags: this.opts.ephemeral ? MessageFlags.Ephemeral : undefined });
      this.markAcknowledged();
      return;
    }
    if (this.deferral) await this.deferral;
    await i.editReply(payload);
  }

  /** An explanation of a failure: always ephemeral, whatever the answer would have been. */
  async fail(payload: ReplyPayload): Promise<void> {
    this.clearTimer();
    const i = this.interaction;
    if (this.state === 'pending') {
      this.state = 'answered';
      await i.reply({ ...payload, flags: MessageFlags.Ephemeral });
      this.markAcknowledged();
      return;
    }
    if (this.deferral) await this.deferral.catch(() => undefined);
    if (!i.deferred && !i.replied) {
      // The deferral itself failed (e.g. Discord was unreachable): nothing more can be sent.
      return;
    }
    if (this.opts.mode === 'reply' && this.deferredEphemeral) {
      await i.editReply({ ...payload, components: payload.components ?? [] });
      return;
    }
    if (this.opts.mode === 'reply') {
      // A public "thinking…" placeholder cannot become ephemeral: replace it.
      await i.deleteReply().catch(() => undefined);
    }
    await i.followUp({ ...payload, flags: MessageFlags.Ephemeral });
  }

  dispose(): void {
    this.clearTimer();
  }

  /** `update` mode on something that has a message to update: a component, or a modal opened from one. */
  private updates(i: RepliableInteraction): i is ButtonInteraction | AnySelectMenuInteraction | ModalMessageModalSubmitInteraction {
    if (this.opts.mode !== 'update') return false;
    return i.isMessageComponent() || (i.isModalSubmit() && i.isFromMessage());
  }

  private markAcknowledged(): void {
    this.acknowledgedAt ??= (this.opts.now ?? Date.now)();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
