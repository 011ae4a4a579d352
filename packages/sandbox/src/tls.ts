/**
 * The sandbox's TLS material: either files supplied by path, or a self-signed certificate for
 * 127.0.0.1 / ::1 / localhost generated on first run and kept in the data folder. The certificate
 * is its own trust anchor: clients pass cert.pem as `ca` (the bot: FEED_API_CA_FILE), or any Node
 * process trusts it through NODE_EXTRA_CA_CERTS set before it starts (Node reads that only at launch).
 */
import { X509Certificate } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
  /** What clients should trust; defaults to certFile. */
  caFile?: string;
}

export interface TlsMaterial {
  certPem: string;
  keyPem: string;
  caFile: string;
  caPem: string;
  /** True when this call generated a new certificate. */
  generated: boolean;
}

const VALIDITY_DAYS = 825;
/** Regenerate when fewer days than this are left, so a long-lived data folder keeps working. */
const RENEW_BEFORE_DAYS = 7;

export async function loadTls(dataDir: string, supplied?: TlsFiles): Promise<TlsMaterial> {
  if (supplied) {
    const [certPem, keyPem] = await Promise.all([readFile(supplied.certFile, 'utf8'), readFile(supplied.keyFile, 'utf8')]);
    const caFile = supplied.caFile ?? supplied.certFile;
    const caPem = supplied.caFile ? await readFile(caFile, 'utf8') : certPem;
    return { certPem, keyPem, caFile, caPem, generated: false };
  }
  const certFile = join(dataDir, 'cert.pem');
  const keyFile = join(dataDir, 'key.pem');
  const existing = await readExisting(certFile, keyFile);
  if (existing) return { ...existing, caFile: certFile, caPem: existing.certPem, generated: false };

  const pems = await generateCertificate();
  await writeFile(keyFile, pems.keyPem, { mode: 0o600 });
  await chmod(keyFile, 0o600);
  await writeFile(certFile, pems.certPem, { mode: 0o644 });
  return { ...pems, caFile: certFile, caPem: pems.certPem, generated: true };
}

async function readExisting(certFile: string, keyFile: string): Promise<{ certPem: string; keyPem: string } | null> {
  try {
    const [certPem, keyPem] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
    const cert = new X509Certificate(certPem);
    const renewAt = Date.parse(cert.validTo) - RENEW_BEFORE_DAYS * 86_400_000;
    if (Date.now() >= renewAt) return null;
    return { certPem, keyPem };
  } catch {
    return null;
  }
}

async function generateCertificate(): Promise<{ certPem: string; keyPem: string }> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(notBeforeDate.getTime() + VALIDITY_DAYS * 86_400_000);
  const pems = await generate([{ name: 'commonName', value: 'feedbot sandbox (localhost)' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { certPem: pems.cert, keyPem: pems.private };
}
