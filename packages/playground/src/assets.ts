/**
 * The playground's files: its own static files (packages/playground/src/public) and, under /vendor, the ES
 * modules of the Discord message renderer and Lit straight from node_modules. An import map
 * (served as JSON and inlined into index.html) lets the browser resolve their bare imports, so
 * there is no bundler and no build step.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sendText } from './http.js';

export const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));

/** Packages the browser may load, with the file their bare name resolves to (package.json exports, browser/production). */
const VENDOR_PACKAGES: Record<string, string> = {
  '@skyra/discord-components-core': 'dist/index.js',
  lit: 'index.js',
  'lit-html': 'lit-html.js',
  'lit-element': 'index.js',
  '@lit/reactive-element': 'reactive-element.js',
  '@lit/context': 'index.js',
};

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
};

const require = createRequire(import.meta.url);

/** Where node would find the package from here (this workspace's or the repository's node_modules). */
function packageDir(name: string): string {
  const dirs = (require.resolve.paths(name) ?? []).map((base) => join(base, ...name.split('/')));
  return dirs.find((dir) => existsSync(join(dir, 'package.json'))) ?? dirs[0] ?? name;
}

/** Fails early (with the fix) when `npm ci` has not installed the renderer. */
export function checkVendorPackages(): void {
  for (const [name, entry] of Object.entries(VENDOR_PACKAGES)) {
    if (!existsSync(join(packageDir(name), entry))) {
      throw new Error(`the playground needs ${name} in node_modules (missing ${entry}); run \`npm ci\``);
    }
  }
}

export function importMap(): { imports: Record<string, string> } {
  const imports: Record<string, string> = {};
  for (const [name, entry] of Object.entries(VENDOR_PACKAGES)) {
    imports[name] = `/vendor/${name}/${entry}`;
    imports[`${name}/`] = `/vendor/${name}/`;
  }
  return { imports };
}

/** A URL path's percent-encoding decoded; undefined when it is malformed (the client's mistake, not ours). */
function decodePath(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}

/** `relative` must stay inside `root`; anything else (.., absolute, NUL) is refused. */
function inside(root: string, relative: string): string | undefined {
  if (relative.includes('\0')) return undefined;
  const full = normalize(join(root, relative));
  return full.startsWith(root.endsWith(sep) ? root : root + sep) ? full : undefined;
}

async function sendFile(res: ServerResponse, file: string | undefined, cache: string): Promise<void> {
  const type = file ? CONTENT_TYPES[extname(file)] : undefined;
  if (!file || !type) return sendText(res, 404, 'not found');
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch {
    return sendText(res, 404, 'not found');
  }
  res.writeHead(200, { 'content-type': type, 'content-length': data.length, 'cache-control': cache, 'x-content-type-options': 'nosniff' });
  res.end(data);
}

/** `/vendor/<package>/<file>`: only the allowed packages, only files with a known type. */
export async function serveVendor(res: ServerResponse, path: string): Promise<void> {
  const rest = decodePath(path.slice('/vendor/'.length));
  if (rest === undefined) return sendText(res, 400, 'bad request: malformed percent-encoding');
  const name = Object.keys(VENDOR_PACKAGES).find((n) => rest.startsWith(`${n}/`));
  if (!name) return sendText(res, 404, 'not found');
  // The renderer's modules never change while the demo runs; let the browser keep them.
  await sendFile(res, inside(packageDir(name), rest.slice(name.length + 1)), 'public, max-age=3600');
}

/** `/static/<file>`: the playground's own files. */
export async function serveStatic(res: ServerResponse, path: string): Promise<void> {
  const relative = decodePath(path.slice('/static/'.length));
  if (relative === undefined) return sendText(res, 400, 'bad request: malformed percent-encoding');
  await sendFile(res, inside(PUBLIC_DIR, relative), 'no-cache');
}

/** index.html with the import map inlined (import maps must be inline to apply). */
export async function serveIndex(res: ServerResponse): Promise<void> {
  const template = await readFile(join(PUBLIC_DIR, 'index.html'), 'utf8');
  const html = template.replace('<!--IMPORT_MAP-->', `<script type="importmap">${JSON.stringify(importMap())}</script>`);
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}
