/**
 * An OTLP/HTTP trace receiver on loopback for the tracing tests: what arrived at POST /v1/traces,
 * JSON batches decoded into spans (attributes as OTLP/JSON writes them).
 */
import { createServer, type Server } from 'node:http';

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: AnyValue }[];
  status?: { code?: number };
}
interface Received {
  contentType: string | undefined;
  serviceName: string | undefined;
  spans: OtlpSpan[];
}

/** An OTLP/HTTP receiver on loopback: what arrived at POST /v1/traces, JSON decoded. */
export class OtlpReceiver {
  readonly batches: Received[] = [];
  readonly raw: string[] = [];
  /** The content type of every batch, JSON or not. */
  readonly contentTypes: (string | undefined)[] = [];
  private constructor(private readonly server: Server) {}

  static async start(): Promise<{ receiver: OtlpReceiver; url: string }> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (req.method === 'POST' && req.url === '/v1/traces') receiver.take(req.headers['content-type'], body);
        res.writeHead(req.url === '/v1/traces' ? 200 : 404, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    return { receiver, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
  }

  get spans(): OtlpSpan[] {
    return this.batches.flatMap((b) => b.spans);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private take(contentType: string | undefined, body: Buffer): void {
    this.contentTypes.push(contentType);
    // Protobuf batches are only counted (their content type is what the tests check).
    if (contentType !== 'application/json') return;
    this.raw.push(body.toString('utf8'));
    const json = JSON.parse(body.toString('utf8')) as { resourceSpans?: { resource?: { attributes?: OtlpSpan['attributes'] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[] };
    for (const rs of json.resourceSpans ?? []) {
      const serviceName = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue;
      this.batches.push({ contentType, serviceName, spans: (rs.scopeSpans ?? []).flatMap((s) => s.spans ?? []) });
    }
  }
}

export function attr(span: OtlpSpan, key: string): string | number | boolean | undefined {
  const v = span.attributes?.find((a) => a.key === key)?.value;
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  return v.boolValue ?? v.doubleValue;
}
