/**
 * Ended spans reach the batch processor one event-loop turn later, so the batch that one span
 * fills is serialized after the work that ended it (an interaction's callback) went on its way.
 * Driven through the real SDK: a provider, the real BatchSpanProcessor, an exporter that records
 * when it is called.
 */
import { DiagLogLevel, diag } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { DeferredSpanProcessor } from '../../src/tracing/deferred-spans.js';

/** Records the order of events: exports and the marks the test writes. */
class RecordingExporter implements SpanExporter {
  constructor(private readonly events: string[]) {}
  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.events.push(`export ${spans.map((s) => s.name).join(',')}`);
    done({ code: 0 }); // ExportResultCode.SUCCESS
  }
  async shutdown(): Promise<void> {}
}

function stack(deferred: boolean) {
  const events: string[] = [];
  const batch = new BatchSpanProcessor(new RecordingExporter(events), { maxExportBatchSize: 2, scheduledDelayMillis: 60_000 });
  const processor: SpanProcessor = deferred ? new DeferredSpanProcessor(batch) : batch;
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  return { events, provider, tracer: provider.getTracer('test') };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('DeferredSpanProcessor', () => {
  it('exports the batch a span fills after the work that ended it, on the next turn', async () => {
    const { events, provider, tracer } = stack(true);
    tracer.startSpan('claim').end();
    tracer.startSpan('feed api').end(); // fills the batch of 2
    events.push('callback sent');
    expect(events).toEqual(['callback sent']);
    await nextTurn();
    expect(events).toEqual(['callback sent', 'export claim,feed api']);
    await provider.shutdown();
  });

  it('is what changes it: the batch processor alone exports inside the end() that fills the batch', async () => {
    const { events, provider, tracer } = stack(false);
    tracer.startSpan('claim').end();
    tracer.startSpan('feed api').end();
    events.push('callback sent');
    expect(events).toEqual(['export claim,feed api', 'callback sent']);
    await provider.shutdown();
  });

  it('hands every ended span on at a flush and at shutdown, without waiting for the turn', async () => {
    const { events, provider, tracer } = stack(true);
    tracer.startSpan('one').end();
    await provider.forceFlush();
    expect(events).toEqual(['export one']);
    tracer.startSpan('two').end();
    await provider.shutdown();
    expect(events).toEqual(['export one', 'export two']);
    await nextTurn();
    expect(events, 'nothing handed on twice').toEqual(['export one', 'export two']);
  });

  describe('a processor that throws', () => {
    afterEach(() => diag.disable());

    it('costs the span a diagnostic line, not the process, and the spans after it still go', async () => {
      const reported: string[] = [];
      diag.setLogger({ error: (message) => void reported.push(message), warn: () => undefined, info: () => undefined, debug: () => undefined, verbose: () => undefined }, DiagLogLevel.ERROR);
      const handed: string[] = [];
      const inner: SpanProcessor = {
        onStart: () => undefined,
        onEnd: (span) => {
          if (span.name === 'bad') throw new Error('processor failed');
          handed.push(span.name);
        },
        forceFlush: async () => undefined,
        shutdown: async () => undefined,
      };
      const provider = new BasicTracerProvider({ spanProcessors: [new DeferredSpanProcessor(inner)] });
      const tracer = provider.getTracer('test');
      tracer.startSpan('bad').end();
      tracer.startSpan('good').end();
      await nextTurn(); // an uncaught throw here would fail the run
      expect(handed).toEqual(['good']);
      expect(reported).toEqual(['a span could not be handed to the batch processor']);
      await provider.shutdown();
    });
  });
});
