/**
 * A handle on one dispatched interaction: wait for the bot's acknowledgement or its final
 * answer, read the messages, and continue the conversation (press a button, submit the modal).
 */
import type { APIInteraction, APIMessage } from 'discord-api-types/v10';
import type { EmulatorEvents } from './events.js';
import type { ModalValues } from './payloads/modal.js';
import type { InteractionSnapshot } from './types.js';
import { MessageFlag } from './validation/fields.js';
import { waitUntil } from './waiting.js';

export interface ActorOverrides {
  userId?: string;
  username?: string;
  locale?: string;
  permissions?: string;
  roles?: string[];
}

/** The operations a handle needs from the emulator. */
export interface HandleHost {
  events: EmulatorEvents;
  snapshotOf(id: string): InteractionSnapshot;
  pressButton(input: { messageId: string; customId: string } & ActorOverrides): InteractionHandle;
  selectMenu(input: { messageId: string; customId: string; values: string[] } & ActorOverrides): InteractionHandle;
  submitModal(input: { interactionId: string; values: ModalValues } & ActorOverrides): InteractionHandle;
}

export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError';
  constructor(
    message: string,
    readonly snapshot: InteractionSnapshot,
  ) {
    super(message);
  }
}

const FINAL_ACK_TYPES = new Set([4, 7, 8, 9]);

/** Whether the bot has visibly finished answering (more follow-ups may still come). */
export function isSettled(s: InteractionSnapshot): boolean {
  if (s.state === 'expired') return true;
  if (!s.ack) return false;
  if (FINAL_ACK_TYPES.has(s.ack.type)) return true;
  if (s.originalDeleted || s.followUps.length > 0) return true;
  if (s.ack.type === 5) return s.original !== null && ((s.original.flags ?? 0) & MessageFlag.Loading) === 0;
  if (s.ack.type === 6) {
    const edited = s.original?.edited_timestamp;
    return typeof edited === 'string' && Date.parse(edited) >= s.ack.at;
  }
  return false;
}

export function findComponent(components: unknown, customId: string): Record<string, unknown> | undefined {
  if (!Array.isArray(components)) return undefined;
  for (const c of components as Record<string, unknown>[]) {
    if (c.custom_id === customId) return c;
    const nested = findComponent(c.components, customId) ?? findComponent(c.accessory ? [c.accessory] : undefined, customId);
    if (nested) return nested;
  }
  return undefined;
}

export class InteractionHandle {
  constructor(
    private readonly host: HandleHost,
    readonly id: string,
    /** The interaction token: only the bot (and tests) should know it. */
    readonly token: string,
    /** The raw INTERACTION_CREATE payload that was dispatched. */
    readonly payload: APIInteraction,
  ) {}

  snapshot(): InteractionSnapshot {
    return this.host.snapshotOf(this.id);
  }

  /** Resolves with the first snapshot that satisfies `predicate`. */
  waitFor(predicate: (s: InteractionSnapshot) => boolean, timeoutMs = 5000, what = 'condition'): Promise<InteractionSnapshot> {
    const check = (s: InteractionSnapshot = this.snapshot()) => (s.id === this.id && predicate(s) ? s : undefined);
    return waitUntil(this.host.events, 'interaction', check, timeoutMs, () => {
      const snap = this.snapshot();
      return new WaitTimeoutError(`interaction ${this.id}: ${what} not reached within ${timeoutMs} ms (state ${snap.state})`, snap);
    });
  }

  /** Resolves once the bot acknowledged; rejects if the acknowledgement deadline passed first. */
  async waitForAck(timeoutMs = 5000): Promise<InteractionSnapshot> {
    const s = await this.waitFor((x) => x.ack !== null || x.state === 'expired', timeoutMs, 'acknowledgement');
    if (!s.ack) throw new WaitTimeoutError(`interaction ${this.id} expired without acknowledgement`, s);
    return s;
  }

  /**
   * Resolves when the bot has finished answering: acknowledged and, after a defer, the reply
   * edited or followed up; then quiet for `settleMs` so trailing follow-ups are included.
   */
  async waitForFinal(opts: { timeoutMs?: number; settleMs?: number } = {}): Promise<InteractionSnapshot> {
    const timeoutMs = opts.timeoutMs ?? 5000;
    const settleMs = opts.settleMs ?? 100;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = await this.waitFor(isSettled, Math.max(1, deadline - Date.now()), 'final answer');
      await new Promise((resolve) => setTimeout(resolve, settleMs));
      const after = this.snapshot();
      if (after.version === s.version || Date.now() >= deadline) return after;
    }
  }

  /** Original reply (or updated component message) followed by follow-ups, as they are now. */
  messages(): APIMessage[] {
    const s = this.snapshot();
    return [...(s.original ? [s.original] : []), ...s.followUps];
  }

  latestMessage(): APIMessage | undefined {
    return this.messages().at(-1);
  }

  modal(): InteractionSnapshot['modal'] {
    return this.snapshot().modal;
  }

  choices(): InteractionSnapshot['choices'] {
    return this.snapshot().choices;
  }

  /** Presses a button on the newest of this interaction's messages that has it. */
  pressButton(customId: string, actor: ActorOverrides = {}): InteractionHandle {
    const message = this.messageWith(customId);
    return this.host.pressButton({ messageId: message.id, customId, ...actor });
  }

  selectMenu(customId: string, values: string[], actor: ActorOverrides = {}): InteractionHandle {
    const message = this.messageWith(customId);
    return this.host.selectMenu({ messageId: message.id, customId, values, ...actor });
  }

  /** Submits the modal this interaction showed, with values by text input custom_id. */
  submitModal(values: ModalValues, actor: ActorOverrides = {}): InteractionHandle {
    return this.host.submitModal({ interactionId: this.id, values, ...actor });
  }

  private messageWith(customId: string): APIMessage {
    const found = this.messages()
      .reverse()
      .find((m) => findComponent(m.components, customId));
    if (!found) throw new Error(`interaction ${this.id}: no message with component "${customId}"`);
    return found;
  }
}
