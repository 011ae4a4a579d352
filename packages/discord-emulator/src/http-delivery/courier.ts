/**
 * Sends one signed request to the Interactions Endpoint and waits for its answer, for as long as
 * Discord would: the interaction's deadline, or the endpoint check's timeout.
 */
import type { EndpointCa, EndpointAnswer } from './transport.js';
import { postToEndpoint } from './transport.js';
import { unixSeconds, type InteractionSigner } from './signer.js';

export type Sent =
  | { answer: EndpointAnswer; timestamp: string; startedAt: number }
  | { failure: 'timeout' | 'unreachable' | 'closed'; detail: string; timestamp: string; startedAt: number };

export interface SendOptions {
  timeoutMs: number;
  /** Sign other bytes than those sent: the check that the endpoint verifies signatures. */
  badSignature?: boolean;
}

export class Courier {
  private readonly closing = new AbortController();

  constructor(
    private readonly signer: InteractionSigner,
    private readonly ca: EndpointCa | undefined,
  ) {}

  async send(url: URL, body: string, opts: SendOptions): Promise<Sent> {
    const startedAt = Date.now();
    const timestamp = unixSeconds(startedAt);
    // A real signature, of the body with another timestamp: well-formed, and wrong.
    const signature = opts.badSignature ? this.signer.sign(String(Number(timestamp) - 1), body) : this.signer.sign(timestamp, body);
    const headers = { 'x-signature-ed25519': signature, 'x-signature-timestamp': timestamp };
    const timeout = AbortSignal.timeout(Math.max(1, opts.timeoutMs));
    const signal = AbortSignal.any([timeout, this.closing.signal]);
    try {
      const answer = await postToEndpoint(url, body, headers, { signal, ca: this.ca });
      return { answer, timestamp, startedAt };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      const message = error instanceof Error ? error.message : String(error);
      const detail = message.includes(code) ? message : `${code}: ${message}`;
      if (this.closing.signal.aborted) return { failure: 'closed', detail: 'the emulator closed', timestamp, startedAt };
      if (timeout.aborted) return { failure: 'timeout', detail: `no answer within ${opts.timeoutMs} ms`, timestamp, startedAt };
      return { failure: 'unreachable', detail, timestamp, startedAt };
    }
  }

  /** Aborts every request under way. */
  close(): void {
    this.closing.abort();
  }
}
