/**
 * A real nginx (Debian's package) as the load balancer in front of HTTP-interaction replicas,
 * started into its own temporary prefix and removed when stopped. Its configuration is generated
 * from the one operators are given, docs/deploy/nginx/interactions.conf, as shipped: its
 * `upstream` block (round-robin, the parameters of its first `server` line on each loopback
 * port, keepalive and its time-out) and its `server` block's directives and locations
 * (proxy_next_upstream, time-outs, body size), with a plain-HTTP loopback `listen` instead of
 * TLS. What the tests show about retries, a replica that stops or restarts, and keep-alive is
 * then what that file does.
 *
 * setUpstreams() rewrites the list of replicas and reloads nginx gracefully (SIGHUP), as an
 * operator does during a rolling restart (docs/OPERATIONS.md).
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitForPort, which } from './servers.js';

const NGINX_DIRS = ['/usr/sbin', '/usr/local/sbin', '/usr/bin', '/usr/local/bin'];

/** The shipped configuration, found from the package's root (src/ and a compiled dist/ alike). */
export const SHIPPED_NGINX_CONF = fileURLToPath(new URL('../../../docs/deploy/nginx/interactions.conf', import.meta.url));

/** A path only the playground's nginx answers: the generation of its configuration in use. */
const GENERATION_PATH = '/.playground/nginx-generation';

export interface LoadBalancer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** The replicas' ports nginx sends to, in its configuration's order. */
  readonly upstreams: readonly number[];
  /**
   * Sends to these ports from now on: the configuration rewritten and nginx reloaded (SIGHUP:
   * new workers take new connections, the old ones finish the requests they hold and close
   * their idle upstream connections themselves). Resolves once a new connection gets the new
   * configuration.
   */
  setUpstreams(ports: readonly number[]): Promise<void>;
  /** nginx's error log so far (level warn and above). */
  errorLog(): Promise<string>;
  stop(): Promise<void>;
}

export interface NginxOptions {
  /** The configuration to take the upstream and the server's locations from; default SHIPPED_NGINX_CONF. */
  conf?: string;
}

/** Why nginx cannot run here (undefined when it can); throws under CI, where it must. */
export function missingNginx(): string | undefined {
  if (which('nginx', NGINX_DIRS)) return undefined;
  const reason = 'nginx not found (apt-get install nginx); skipping the load-balancer tests';
  if (process.env.CI === 'true') throw new Error(`${reason} — not allowed under CI`);
  return reason;
}

/** One directive (`head`), or a block (`head { body }`), of an nginx configuration. */
interface Statement {
  head: string;
  body?: Statement[];
}

/** nginx's syntax as far as the shipped file uses it: directives, blocks, quotes and comments. */
function parseNginxConf(text: string): Statement[] {
  let i = 0;
  const list = (depth: number): Statement[] => {
    const out: Statement[] = [];
    let head = '';
    const flush = () => head.trim().replace(/\s+/g, ' ');
    while (i < text.length) {
      const c = text[i]!;
      if (c === '#') {
        while (i < text.length && text[i] !== '\n') i++;
      } else if (c === '"' || c === "'") {
        const end = text.indexOf(c, i + 1);
        if (end < 0) throw new Error('nginx configuration: unterminated quote');
        head += text.slice(i, end + 1);
        i = end + 1;
      } else if (c === ';') {
        i++;
        if (flush()) out.push({ head: flush() });
        head = '';
      } else if (c === '{') {
        i++;
        const name = flush();
        out.push({ head: name, body: list(depth + 1) });
        head = '';
      } else if (c === '}') {
        i++;
        if (depth === 0 || flush()) throw new Error('nginx configuration: unexpected }');
        return out;
      } else {
        head += c;
        i++;
      }
    }
    if (depth > 0 || flush()) throw new Error('nginx configuration: unterminated block or directive');
    return out;
  };
  return list(0);
}

function render(statements: Statement[], indent: string): string {
  return statements.map((s) => (s.body ? `${indent}${s.head} {\n${render(s.body, `${indent}  `)}${indent}}\n` : `${indent}${s.head};\n`)).join('');
}

/** The shipped upstream and server, for `upstreams` on loopback behind a plain-HTTP `listen` on `port`. */
function loadBalancerConf(shipped: string, port: number, upstreams: readonly number[], generation: number): Statement[] {
  if (upstreams.length === 0) throw new Error('nginx needs at least one upstream server');
  const top = parseNginxConf(shipped);
  const upstream = top.find((s) => s.body && /^upstream \S+$/.test(s.head));
  const server = top.find((s) => s.body && s.head === 'server');
  if (!upstream?.body || !server?.body) throw new Error('the nginx configuration has no upstream block or no server block');
  const servers = upstream.body.filter((s) => /^server /.test(s.head));
  const params = servers[0]?.head.split(' ').slice(2) ?? [];
  const tls = /^(listen|http2|server_name|ssl_\w+)( |$)/;
  return [
    {
      head: upstream.head,
      body: [...upstreams.map((p) => ({ head: ['server', `127.0.0.1:${p}`, ...params].join(' ') })), ...upstream.body.filter((s) => !/^server /.test(s.head))],
    },
    {
      head: 'server',
      body: [
        { head: `listen 127.0.0.1:${port}` },
        { head: `location = ${GENERATION_PATH}`, body: [{ head: `return 200 "${generation}"` }] },
        ...server.body.filter((s) => !tls.test(s.head)),
      ],
    },
  ];
}

function nginxConf(dir: string, http: Statement[]): string {
  const asRoot = process.getuid?.() === 0;
  return `${asRoot ? 'user root root;\n' : ''}worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${render(http, '  ')}}
`;
}

/** GET on a new connection (no keep-alive: an old worker's connection would answer the old configuration). */
function getText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, timeout: 2_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(text));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 2 s')));
    req.on('error', reject);
    req.end();
  });
}

export async function startNginx(upstreams: readonly number[], opts: NginxOptions = {}): Promise<LoadBalancer> {
  const nginx = which('nginx', NGINX_DIRS);
  if (!nginx) throw new Error('nginx not found');
  const shipped = await readFile(opts.conf ?? SHIPPED_NGINX_CONF, 'utf8');
  const dir = await mkdtemp(path.join(tmpdir(), 'feedbot-nginx-'));
  const port = await freePort();
  const confFile = path.join(dir, 'nginx.conf');
  let generation = 1;
  let current = [...upstreams];
  await writeFile(confFile, nginxConf(dir, loadBalancerConf(shipped, port, current, generation)));
  const child = spawn(nginx, ['-p', dir, '-c', confFile, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const stderr: string[] = [];
  child.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await Promise.race([waitForPort(port, 10_000), exited.then(() => Promise.reject(new Error(`nginx exited: ${stderr.join('')}`)))]);
  } catch (error) {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const url = `http://127.0.0.1:${port}`;
  const errorLog = () => readFile(path.join(dir, 'error.log'), 'utf8').catch(() => '');
  let reloading = Promise.resolve();
  return {
    url,
    get upstreams() {
      return current;
    },
    setUpstreams(ports) {
      const next = reloading.then(async () => {
        const wanted = ++generation;
        await writeFile(confFile, nginxConf(dir, loadBalancerConf(shipped, port, ports, wanted)));
        child.kill('SIGHUP');
        const deadline = Date.now() + 10_000;
        for (;;) {
          const seen = await getText(`${url}${GENERATION_PATH}`).catch(() => '');
          if (seen === String(wanted)) break;
          if (Date.now() > deadline) throw new Error(`nginx did not take configuration ${wanted} within 10 s (it answers "${seen}"): ${await errorLog()}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        current = [...ports];
      });
      reloading = next.catch(() => undefined);
      return next;
    },
    errorLog,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGQUIT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
