/** The record of every request the emulator sent to an Interactions Endpoint, and how it went. */
import type { EmulatorEvents } from '../events.js';
import type { EndpointAnswer } from './transport.js';

/**
 * `accepted`: the answer was taken (a PING check passed, an interaction response was applied);
 * `deferred`: 202, the bot answers through the callback route; `refused`: the answer was not
 * taken (a violation says why); `timeout`: no answer in time; `unreachable`: no HTTP answer at all.
 */
export type DeliveryOutcome = 'accepted' | 'deferred' | 'refused' | 'timeout' | 'unreachable';

export interface DeliveryRecord {
  seq: number;
  at: number;
  url: string;
  /** `ping_bad_signature` and `ping`: the two checks made before an endpoint is saved. */
  kind: 'ping_bad_signature' | 'ping' | 'interaction';
  interactionId: string | null;
  /** `X-Signature-Timestamp` sent. */
  timestamp: string;
  /** 0 when there was no HTTP answer. */
  status: number;
  /** The answer's body: parsed JSON, else text (cut at 2,000 characters), null when empty. */
  answer: unknown;
  outcome: DeliveryOutcome;
  /** Why, when it was not accepted. */
  detail?: string;
  durationMs: number;
}

const MAX_TEXT = 2000;

/** What to keep of an answer's body. */
export function answerBody(answer: EndpointAnswer | undefined): unknown {
  if (!answer || answer.body.length === 0) return null;
  const text = answer.body.toString('utf8');
  if (answer.mediaType === 'application/json') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // kept as text below
    }
  }
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

export class DeliveryLog {
  readonly records: DeliveryRecord[] = [];
  private seq = 0;

  constructor(
    private readonly events: EmulatorEvents,
    private readonly maxRecords: number,
  ) {}

  add(record: Omit<DeliveryRecord, 'seq'>): DeliveryRecord {
    const entry: DeliveryRecord = { seq: ++this.seq, ...record };
    this.records.push(entry);
    if (this.records.length > this.maxRecords) this.records.shift();
    this.events.emit('delivery', structuredClone(entry));
    return entry;
  }

  clear(): void {
    this.records.length = 0;
  }
}
