/**
 * The bot's tracing seam: what instrumented code calls, with no OpenTelemetry behind it until
 * `startTracing` installs it. With no OTLP endpoint configured the process never imports an
 * OpenTelemetry module (start-up time and memory stay as they were, bench scenario 13), and every
 * `inSpan` is a plain call of its function.
 *
 * One tracer per process, like the logger's redaction rules: the feed API client, the key store
 * and discord.js' REST layer are reached from every command and job, and threading a tracer
 * through each constructor would change every signature for something most installs leave off.
 */
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';

export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** `server`: Discord asked (an interaction); `client`: we ask (feed API, Discord REST); `internal`: ours (jobs). */
export type SpanKind = 'internal' | 'server' | 'client';

interface SpanOptions {
  kind?: SpanKind;
  attributes?: SpanAttributes;
  /** Start a new trace, whatever span is current (a timer's job, an event from the gateway). */
  root?: boolean;
}

/** What instrumented code may do with its span. */
export interface TraceSpan {
  set(attributes: SpanAttributes): void;
  rename(name: string): void;
  /** The work failed: error status, and one `exception` event with the error's type and (redacted) message. */
  fail(error: unknown): void;
  /** Error status with a description, without an exception (an outcome the code handled). */
  failed(description: string): void;
}

export interface TraceIds {
  trace_id: string;
  span_id: string;
  trace_flags: string;
}

export interface Tracer {
  readonly enabled: boolean;
  /**
   * Runs `fn` inside a new span, child of the current one (unless `root`); the span ends when
   * `fn` settles, and a throw marks it failed before passing through.
   */
  inSpan<T>(name: string, opts: SpanOptions, fn: (span: TraceSpan) => Promise<T>): Promise<T>;
  /** The current span's ids, for log lines; undefined outside any span. */
  ids(): TraceIds | undefined;
}

/** The span of no trace: code that takes a span is handed this one when tracing is off. */
export const NOOP_SPAN: TraceSpan = {
  set: () => undefined,
  rename: () => undefined,
  fail: () => undefined,
  failed: () => undefined,
};

export const NOOP_TRACER: Tracer = {
  enabled: false,
  inSpan: (_name, _opts, fn) => fn(NOOP_SPAN),
  ids: () => undefined,
};

let current: Tracer = NOOP_TRACER;

/** The process's tracer: the no-op one until `startTracing` (or a test) installs another. */
export function tracer(): Tracer {
  return current;
}

/** Installs `t` as the process's tracer; returns a function that puts the previous one back (tests). */
export function installTracer(t: Tracer): () => void {
  const previous = current;
  current = t;
  return () => {
    current = previous;
  };
}

/**
 * For pino's `mixin`: the current span's ids on every line written inside one, nothing otherwise.
 * A new object each call: pino merges the line's own fields into it.
 */
export function traceLogFields(): object {
  return (current.enabled && current.ids()) || {};
}

type TracingConfig = Pick<
  Config,
  'OTEL_SDK_DISABLED' | 'OTEL_TRACES_EXPORTER' | 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' | 'OTEL_EXPORTER_OTLP_PROTOCOL' | 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' | 'OTEL_SERVICE_NAME'
>;

/** Whether the configuration asks for traces: an OTLP endpoint, and neither the SDK nor the exporter turned off. */
export function tracingRequested(config: TracingConfig): boolean {
  if (config.OTEL_SDK_DISABLED === 'true' || config.OTEL_TRACES_EXPORTER === 'none') return false;
  return config.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined;
}

/** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces (the OTLP/HTTP rule). */
export function tracesEndpoint(config: TracingConfig): string | undefined {
  if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined) return config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (config.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined) return `${config.OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces`;
  return undefined;
}

export interface Tracing {
  /** Sends the spans still buffered and stops exporting (bounded: a collector that is down costs at most a few seconds). */
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry when the configuration asks for it and installs its tracer; undefined (and
 * nothing imported) otherwise.
 */
export async function startTracing(config: TracingConfig, logger: Logger): Promise<Tracing | undefined> {
  if (!tracingRequested(config)) return undefined;
  const { startOpenTelemetry } = await import('./otel.js');
  const started = await startOpenTelemetry({
    url: tracesEndpoint(config)!,
    protocol: config.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? config.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    serviceName: config.OTEL_SERVICE_NAME,
    logger,
  });
  const restore = installTracer(started.tracer);
  return {
    async shutdown() {
      await started.shutdown();
      restore();
    },
  };
}
