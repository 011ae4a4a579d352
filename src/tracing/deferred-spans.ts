/**
 * The batch processor exports a batch from inside the `span.end()` that fills it: 512 spans are
 * serialized there, synchronously (about 2.5 ms of protobuf on a small VM). Three of an
 * interaction's spans end before its callback is sent, so the interaction that happened to fill a
 * batch answered Discord late by that much. Here ended spans reach the batch processor on the next
 * turn of the event loop, all of a turn's together: the serialization runs between turns, after the
 * callback that was on its way has been written. Nothing is held longer than one turn.
 */
import { diag, type Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-node';

export class DeferredSpanProcessor implements SpanProcessor {
  private ended: ReadableSpan[] = [];
  private scheduled: NodeJS.Immediate | undefined;

  constructor(private readonly inner: SpanProcessor) {}

  onStart(span: Span, parentContext: Context): void {
    this.inner.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    this.ended.push(span);
    // Unref'd as the batch processor's own timer is: spans never keep a process alive; shutdown hands them on.
    this.scheduled ??= setImmediate(() => this.handOn()).unref();
  }

  forceFlush(): Promise<void> {
    this.handOn();
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    this.handOn();
    return this.inner.shutdown();
  }

  private handOn(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const ended = this.ended;
    this.ended = [];
    for (const span of ended) {
      // This runs from setImmediate on the turn after: a throw here would be uncaught and end the
      // process, where inside span.end() it failed one interaction. The SDK's diag reaches the log.
      try {
        this.inner.onEnd(span);
      } catch (error) {
        diag.error('a span could not be handed to the batch processor', error);
      }
    }
  }
}
