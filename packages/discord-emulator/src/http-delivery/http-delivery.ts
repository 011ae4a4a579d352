/**
 * Interactions over HTTP: once an Interactions Endpoint URL is saved (after the portal's checks,
 * endpoint-check.ts), every interaction is POSTed there, signed, instead of being dispatched over
 * the gateway, and the answer has the interaction's deadline (3 s) to come (answer.ts).
 */
import type { APIUser } from 'discord-api-types/v10';
import type { RestResult } from '../errors.js';
import type { EmulatorEvents } from '../events.js';
import type { InteractionRecord, InteractionRegistry } from '../interactions/registry.js';
import type { ResponseContext } from '../interactions/response-message.js';
import type { Logger } from '../log.js';
import type { RecordedCall, Violation } from '../types.js';
import { ENDPOINT_ROUTE, takeAnswer, type AnswerResult } from './answer.js';
import { Courier } from './courier.js';
import { answerBody, DeliveryLog } from './delivery-log.js';
import { verifyInteractionsEndpoint } from './endpoint-check.js';
import type { InteractionSigner } from './signer.js';
import type { EndpointCa } from './transport.js';

export interface HttpDeliveryDeps {
  applicationId: string;
  owner: APIUser;
  signer: InteractionSigner;
  ca: EndpointCa | undefined;
  /** How long each PING check waits for its answer. */
  checkTimeoutMs: number;
  registry: InteractionRegistry;
  responses: ResponseContext;
  events: EmulatorEvents;
  logger: Logger;
  maxRecords: number;
  recordViolation: (v: Omit<Violation, 'at'>) => void;
  recordRejection: (result: RestResult, where: Pick<RecordedCall, 'at' | 'method' | 'route' | 'path' | 'body'>) => void;
}

export class HttpDelivery {
  readonly log: DeliveryLog;
  private readonly courier: Courier;
  private endpoint: URL | null = null;
  private readonly underWay = new Set<Promise<void>>();

  constructor(private readonly deps: HttpDeliveryDeps) {
    this.log = new DeliveryLog(deps.events, deps.maxRecords);
    this.courier = new Courier(deps.signer, deps.ca);
  }

  /** The saved Interactions Endpoint URL; null: interactions go over the gateway. */
  get url(): string | null {
    return this.endpoint?.href ?? null;
  }

  get active(): boolean {
    return this.endpoint !== null;
  }

  /**
   * Saves `url` once it passes the portal's checks (else throws InteractionsEndpointError and
   * keeps the previous one); null goes back to the gateway.
   */
  async setEndpoint(url: string | null): Promise<string | null> {
    if (url === null) {
      this.endpoint = null;
      return null;
    }
    const { applicationId, owner, checkTimeoutMs: timeoutMs } = this.deps;
    this.endpoint = await verifyInteractionsEndpoint({ applicationId, owner, courier: this.courier, log: this.log, timeoutMs }, url);
    this.deps.logger.info({ url: this.endpoint.href }, 'interactions endpoint saved');
    return this.endpoint.href;
  }

  /** POSTs the interaction to the endpoint; its answer (or the lack of one) settles it. */
  deliver(rec: InteractionRecord): void {
    const url = this.endpoint;
    if (!url) throw new Error('no interactions endpoint is set');
    const task = this.run(url, rec)
      .catch((error: unknown) => this.deps.logger.error({ err: error instanceof Error ? error.message : String(error), interactionId: rec.id }, 'http delivery failed'))
      .finally(() => this.underWay.delete(task));
    this.underWay.add(task);
  }

  /** Aborts deliveries under way and waits for them to settle. */
  async close(): Promise<void> {
    this.courier.close();
    await Promise.allSettled([...this.underWay]);
  }

  private async run(url: URL, rec: InteractionRecord): Promise<void> {
    const sent = await this.courier.send(url, JSON.stringify(rec.payload), { timeoutMs: rec.ackDeadlineAt - Date.now() });
    let result: AnswerResult;
    if ('answer' in sent) result = await takeAnswer(this.deps, rec, url, sent.answer, sent.startedAt);
    else if (sent.failure === 'closed') return;
    else result = this.noAnswer(url, rec, sent.failure, sent.detail);
    this.log.add({
      at: sent.startedAt,
      url: url.href,
      kind: 'interaction',
      interactionId: rec.id,
      timestamp: sent.timestamp,
      status: 'answer' in sent ? sent.answer.status : 0,
      answer: 'answer' in sent ? answerBody(sent.answer) : null,
      ...result,
      durationMs: Date.now() - sent.startedAt,
    });
  }

  /** No answer in time: unacknowledged, it expires as over the gateway; unreachable, it fails. */
  private noAnswer(url: URL, rec: InteractionRecord, failure: 'timeout' | 'unreachable', detail: string): AnswerResult {
    if (failure === 'timeout' && rec.state === 'pending') {
      this.deps.registry.expire(rec);
      return { outcome: 'timeout', detail };
    }
    if (failure === 'timeout' && rec.state === 'expired') return { outcome: 'timeout', detail };
    const message =
      failure === 'timeout'
        ? `no answer to the HTTP request within the deadline; after the callback route, answer 202 without a body`
        : `the endpoint could not be reached (${detail})`;
    this.deps.recordViolation({ kind: 'interactions_endpoint', status: 0, code: 0, message: `Interactions Endpoint: ${message}`, method: 'POST', route: ENDPOINT_ROUTE, path: url.href, interactionId: rec.id });
    this.deps.registry.fail(rec);
    return { outcome: failure, detail };
  }
}
