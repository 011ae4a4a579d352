/**
 * The parts of Discord's OpenAPI document (discord/discord-api-spec, `specs/openapi.json`) the
 * emulator checks what it receives against: the request body of one operation and every schema
 * it refers to. Interaction responses (`POST /interactions/{interaction_id}/{interaction_token}/callback`)
 * are kept in `spec/discord-openapi.callback.json`, channel messages (`POST /channels/{channel_id}/messages`)
 * in `spec/discord-openapi.message-create.json` (the whole document is over 1 MB);
 * `write-subset.ts` regenerates them from a newer document.
 */
export const CALLBACK_PATH = '/interactions/{interaction_id}/{interaction_token}/callback';
export const MESSAGE_CREATE_PATH = '/channels/{channel_id}/messages';

export type JsonSchema = boolean | { [keyword: string]: unknown };

export interface OpenApiSubset {
  source: { title: string; version: string; operationId: string; path: string };
  /** The request body schema (`application/json`). */
  root: JsonSchema;
  /** `#/components/schemas/<name>` targets, by name. */
  schemas: Record<string, JsonSchema>;
}

const REF_PREFIX = '#/components/schemas/';

interface OpenApiDocument {
  info?: { title?: string; version?: string };
  paths?: Record<string, Record<string, { operationId?: string; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

export function extractCallbackSubset(document: unknown): OpenApiSubset {
  return extractRequestSubset(document, CALLBACK_PATH);
}

/** The `application/json` request body of `POST path`, with the schemas it refers to. */
export function extractRequestSubset(document: unknown, path: string): OpenApiSubset {
  const doc = document as OpenApiDocument;
  const operation = doc.paths?.[path]?.post;
  const root = operation?.requestBody?.content?.['application/json']?.schema;
  if (!operation || root === undefined) throw new Error(`the document has no application/json request body for POST ${path}`);
  const all = doc.components?.schemas ?? {};
  const schemas: Record<string, JsonSchema> = {};
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(REF_PREFIX)) {
        const name = value.slice(REF_PREFIX.length);
        if (name in schemas) continue;
        const target = all[name];
        if (target === undefined) throw new Error(`dangling $ref ${value}`);
        schemas[name] = target;
        visit(target);
      } else {
        visit(value);
      }
    }
  };
  visit(root);
  const sorted = Object.fromEntries(Object.keys(schemas).sort().map((name) => [name, schemas[name]!]));
  return {
    source: { title: doc.info?.title ?? '', version: doc.info?.version ?? '', operationId: operation.operationId ?? '', path },
    root,
    schemas: sorted,
  };
}

/** One schema per line, so that a regenerated file diffs by schema. */
export function renderSubset(subset: OpenApiSubset): string {
  const schemas = Object.entries(subset.schemas).map(([name, schema]) => `    ${JSON.stringify(name)}: ${JSON.stringify(schema)}`);
  return `{\n  "source": ${JSON.stringify(subset.source)},\n  "root": ${JSON.stringify(subset.root)},\n  "schemas": {\n${schemas.join(',\n')}\n  }\n}\n`;
}
