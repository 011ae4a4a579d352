/**
 * A real nginx (Debian's package) as the load balancer in front of HTTP-interaction replicas:
 * round-robin over loopback upstreams, started into its own temporary prefix and removed when
 * stopped. A replica that refuses connections is skipped for the next one (the request never
 * reached it, so passing it on is safe even for a POST); one that took a request and died is not
 * retried elsewhere, as nginx does for non-idempotent requests. Replicas are never marked down
 * (max_fails=0): on loopback a refused connection costs nothing, and a restarted replica gets
 * requests at once instead of after a fail_timeout of 502s.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, waitForPort, which } from './servers.js';

const NGINX_DIRS = ['/usr/sbin', '/usr/local/sbin', '/usr/bin', '/usr/local/bin'];

export interface LoadBalancer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  stop(): Promise<void>;
}

/** Why nginx cannot run here (undefined when it can); throws under CI, where it must. */
export function missingNginx(): string | undefined {
  if (which('nginx', NGINX_DIRS)) return undefined;
  const reason = 'nginx not found (apt-get install nginx); skipping the load-balancer tests';
  if (process.env.CI === 'true') throw new Error(`${reason} — not allowed under CI`);
  return reason;
}

function config(dir: string, port: number, upstreams: number[]): string {
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
  upstream feedbot {
${upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=0;`).join('\n')}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    client_max_body_size 1m;
    location / {
      proxy_pass http://feedbot;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_next_upstream error timeout;
      proxy_connect_timeout 1s;
      proxy_read_timeout 5s;
    }
  }
}
`;
}

export async function startNginx(upstreams: number[]): Promise<LoadBalancer> {
  const nginx = which('nginx', NGINX_DIRS);
  if (!nginx) throw new Error('nginx not found');
  const dir = await mkdtemp(path.join(tmpdir(), 'feedbot-nginx-'));
  const port = await freePort();
  await writeFile(path.join(dir, 'nginx.conf'), config(dir, port, upstreams));
  const child = spawn(nginx, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
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
  return {
    url: `http://127.0.0.1:${port}`,
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
