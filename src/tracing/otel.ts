/**
 * OpenTelemetry behind the tracing seam (tracer.ts), imported only when an OTLP endpoint is set.
 *
 * The endpoint comes from the checked configuration (tracer.ts). The SDK reads the other standard
 * variables itself: headers, time-out and compression; the sampler
 * (OTEL_TRACES_SAMPLER, _ARG; parent-based always-on by default); the batch processor's
 * OTEL_BSP_*; OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. config.ts has checked the values
 * feedbot reads too. Spans go out in batches, sent and serialized between turns of the event loop
 * (deferred-spans.ts): an answer never waits for the collector, and a collector that is down costs
 * a warning, not an interaction.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DiagLogLevel, ROOT_CONTEXT, SpanKind as OtelSpanKind, SpanStatusCode, context, diag, trace, type Attributes, type Span } from '@opentelemetry/api';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import type { Logger } from '../logger.js';
import { redactTokens } from '../redact.js';
import type { SpanAttributes, SpanKind, TraceIds, TraceSpan, Tracer } from './tracer.js';
import { within } from '../within.js';
import { DeferredSpanProcessor } from './deferred-spans.js';

interface OpenTelemetryOptions {
  protocol: 'http/protobuf' | 'http/json';
  /** Where batches are POSTed (the configuration's traces endpoint, /v1/traces included). */
  url: string;
  /** OTEL_SERVICE_NAME; `feedbot` when unset. */
  serviceName: string | undefined;
  logger: Logger;
}

const KINDS: Record<SpanKind, OtelSpanKind> = { internal: OtelSpanKind.INTERNAL, server: OtelSpanKind.SERVER, client: OtelSpanKind.CLIENT };

/** The SDK's own complaints (an unreachable collector, a refused batch): at most one log line a minute. */
const DIAG_INTERVAL_MS = 60_000;
/** How long shutdown waits for the last batch. */
const SHUTDOWN_TIMEOUT_MS = 3_000;

export async function startOpenTelemetry(opts: OpenTelemetryOptions): Promise<{ tracer: Tracer; shutdown(): Promise<void> }> {
  const logger = opts.logger.child({ component: 'tracing' });
  forwardDiagnostics(logger);
  const exporter = await exporterFor(opts.protocol, opts.url);
  const resource = resourceFromAttributes({ 'service.name': opts.serviceName ?? 'feedbot', 'service.version': ownVersion() }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new DeferredSpanProcessor(new BatchSpanProcessor(exporter))] });
  // The global context manager (AsyncLocalStorage) carries the current span across awaits.
  provider.register();
  const otel = provider.getTracer('feedbot', ownVersion());
  logger.info({ protocol: opts.protocol }, 'traces are exported over OTLP');

  const tracer: Tracer = {
    enabled: true,
    inSpan(name, spanOpts, fn) {
      const parent = spanOpts.root ? ROOT_CONTEXT : context.active();
      const span = otel.startSpan(name, { kind: KINDS[spanOpts.kind ?? 'internal'], ...(spanOpts.attributes ? { attributes: clean(spanOpts.attributes) } : {}) }, parent);
      const handle = spanHandle(span);
      return context.with(trace.setSpan(parent, span), async () => {
        try {
          return await fn(handle);
        } catch (error) {
          handle.fail(error);
          throw error;
        } finally {
          span.end();
        }
      });
    },
    ids(): TraceIds | undefined {
      const span = trace.getSpan(context.active());
      if (!span) return undefined;
      const c = span.spanContext();
      return { trace_id: c.traceId, span_id: c.spanId, trace_flags: c.traceFlags.toString(16).padStart(2, '0') };
    },
  };

  return {
    tracer,
    async shutdown() {
      await within(provider.shutdown().catch(() => undefined), SHUTDOWN_TIMEOUT_MS);
    },
  };
}

async function exporterFor(protocol: OpenTelemetryOptions['protocol'], url: string): Promise<SpanExporter> {
  // Only the exporter asked for is loaded. Headers, time-out and compression: OTEL_EXPORTER_OTLP_*.
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter({ url });
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter({ url });
}

function spanHandle(span: Span): TraceSpan {
  let failed = false;
  return {
    set: (attributes) => void span.setAttributes(clean(attributes)),
    rename: (name) => void span.updateName(name),
    fail(error) {
      if (failed) return;
      failed = true;
      const type = error instanceof Error ? error.name : typeof error;
      // Messages are ours or Discord's; tokens in a URL are cut, as in the logs.
      const message = redactTokens(error instanceof Error ? error.message : String(error));
      span.addEvent('exception', { 'exception.type': type, 'exception.message': message });
      span.setStatus({ code: SpanStatusCode.ERROR, message });
    },
    failed(description) {
      failed = true;
      span.setStatus({ code: SpanStatusCode.ERROR, message: description });
    },
  };
}

function clean(attributes: SpanAttributes): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined) out[k] = v;
  return out;
}

/** The SDK reports through `diag`: warnings and errors become log lines, one a minute at most. */
function forwardDiagnostics(logger: Logger): void {
  let lastAt = -Infinity;
  let dropped = 0;
  const write = (level: 'warn' | 'error') => (message: string, ...args: unknown[]) => {
    const now = Date.now();
    if (now - lastAt < DIAG_INTERVAL_MS) {
      dropped += 1;
      return;
    }
    lastAt = now;
    const detail = args.map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : '')).filter(Boolean).join('; ');
    logger.warn({ sdkLevel: level, detail: redactTokens(detail).slice(0, 500), droppedSinceLast: dropped }, `OpenTelemetry: ${redactTokens(message).slice(0, 300)}`);
    dropped = 0;
  };
  const quiet = () => undefined;
  diag.setLogger({ error: write('error'), warn: write('warn'), info: quiet, debug: quiet, verbose: quiet }, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
}

let version: string | undefined;
/** feedbot's version from its package.json (src/ and dist/src/ sit at different depths). */
function ownVersion(): string {
  if (version !== undefined) return version;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'feedbot' && typeof pkg.version === 'string') return (version = pkg.version);
    } catch {
      // Not here: one level up.
    }
    dir = dirname(dir);
  }
  return (version = 'unknown');
}
