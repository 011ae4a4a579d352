/**
 * The HTTP side of the REST API: reads the body, routes, checks the bot token, answers, and keeps
 * the record tests assert on: every call, and every answer Discord would have given as an error.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RestResult } from './errors.js';
import type { EmulatorEvents } from './events.js';
import { BodyError, parseBody, readBody, sendJson, type Router } from './http.js';
import type { InteractionRegistry } from './interactions/registry.js';
import type { Logger } from './log.js';
import type { RequestGuard } from './request-guard.js';
import type { RestRoute } from './rest.js';
import type { RecordedCall, Violation } from './types.js';

export interface RestEndpointDeps {
  router: Router<RestRoute>;
  guard: RequestGuard;
  botToken: string;
  maxRecordedCalls: number;
  registry: InteractionRegistry;
  events: EmulatorEvents;
  logger: Logger;
}

/** `/webhooks/:app/:token/messages/:message` with `@original` kept literally. */
function routeTemplate(pattern: string, params: Record<string, string>): string {
  return pattern
    .split('/')
    .map((part) => {
      if (!part.startsWith(':')) return part;
      const value = params[part.slice(1)] ?? '';
      return value.startsWith('@') ? value : part;
    })
    .join('/');
}

const answer = (status: number, message: string, code: number, kind: NonNullable<RestResult['violation']>['kind']): RestResult => ({
  status,
  body: { message, code },
  violation: { kind },
});

export class RestEndpoint {
  /** Every REST call, oldest first. */
  readonly calls: RecordedCall[] = [];
  /** Every rejected call (4xx) and every interaction left unacknowledged. */
  readonly violations: Violation[] = [];
  private callSeq = 0;

  constructor(private readonly deps: RestEndpointDeps) {}

  clear(): void {
    this.calls.length = 0;
    this.violations.length = 0;
  }

  recordViolation(v: Omit<Violation, 'at'>): void {
    const violation: Violation = { at: Date.now(), ...v };
    this.violations.push(violation);
    this.deps.logger.warn({ kind: v.kind, status: v.status, code: v.code, route: v.route, errors: v.errors }, `discord would reject: ${v.message}`);
    this.deps.events.emit('violation', violation);
  }

  /** One request under `/api[/vN]`; `segments` are the path segments after the version. */
  async handle(req: IncomingMessage, res: ServerResponse, segments: string[], url: URL): Promise<void> {
    const started = Date.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const path = `/${segments.join('/')}`;
    const match = this.deps.router.match(method, segments);
    const route = !match ? path.replace(/\d{15,21}/g, ':id') : match.handler === null ? match.pattern : routeTemplate(match.pattern, match.params);
    let result: RestResult;
    let body: unknown;
    let files: { field: string; name: string; contentType: string; data: Buffer }[] = [];
    try {
      // A body of another type never reaches a handler (nor the parser): see request-guard.ts.
      const refused = this.deps.guard.checkBodyType(req, { multipart: match?.handler?.multipart === true });
      if (refused) throw new BodyError(refused.reason, refused.status);
      const raw = await readBody(req);
      try {
        ({ body, files } = await parseBody(req, raw));
      } catch {
        body = raw.toString('utf8');
        throw new BodyError('invalid body', 400);
      }
      if (!match) {
        result = answer(404, '404: Not Found', 0, 'not_found');
      } else if (match.handler === null) {
        result = answer(405, '405: Method Not Allowed', 0, 'bad_request');
      } else {
        result =
          match.handler.auth && req.headers.authorization !== `Bot ${this.deps.botToken}`
            ? answer(401, '401: Unauthorized', 0, 'unauthorized')
            : await match.handler.handle({ params: match.params, query: url.searchParams, body, files });
      }
    } catch (error) {
      if (!(error instanceof BodyError)) throw error;
      result =
        error.status === 413
          ? answer(413, 'Request entity too large', 40005, 'bad_request')
          : error.status === 415
            ? answer(415, '415: Unsupported Media Type', 0, 'bad_request')
            : answer(400, 'The request body contains invalid JSON.', 50109, 'bad_request');
    }
    if (result.raw) {
      res.writeHead(result.status, { 'content-type': result.raw.contentType });
      res.end(result.raw.data);
    } else {
      sendJson(res, result.status, result.body);
    }
    const call: RecordedCall = {
      seq: ++this.callSeq,
      at: started,
      method,
      path,
      route,
      query: Object.fromEntries(url.searchParams),
      body,
      files: files.map((f) => ({ name: f.name, size: f.data.length, contentType: f.contentType })),
      status: result.status,
      response: result.body,
      durationMs: Date.now() - started,
    };
    this.record(call, result);
  }

  private record(call: RecordedCall, result: RestResult): void {
    this.calls.push(call);
    if (this.calls.length > this.deps.maxRecordedCalls) this.calls.shift();
    this.deps.logger.debug({ method: call.method, route: call.route, status: call.status }, 'rest call');
    this.deps.events.emit('call', call);
    this.recordRejection(result, call);
  }

  /**
   * Records a refused answer (one with a `violation`) as a violation, against its interaction:
   * for REST calls, and for the answers of an Interactions Endpoint (http-delivery/).
   */
  recordRejection(result: RestResult, where: Pick<RecordedCall, 'at' | 'method' | 'route' | 'path' | 'body'>): void {
    if (!result.violation) return;
    const { kind, interactionId, errors } = result.violation;
    const errorBody = (result.body ?? {}) as { code?: number; message?: string };
    const code = errorBody.code ?? 0;
    const message = errorBody.message ?? '';
    const { method, route, path, body } = where;
    const status = result.status;
    this.recordViolation({
      kind,
      status,
      code,
      message,
      method,
      route,
      path,
      ...(interactionId ? { interactionId } : {}),
      ...(errors !== undefined ? { errors } : {}),
      body,
    });
    if (interactionId) this.deps.registry.noteError(interactionId, { at: where.at, method, route, status, code, message });
  }
}
