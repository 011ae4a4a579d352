/**
 * A synchronous, ~1 µs look at the header of SQLite's WAL index (the `-shm` file next to the
 * database), used by commit-watch.ts to skip its `PRAGMA data_version` round trip when nothing
 * can have been committed. The format is SQLite's documented one for the unix and windows VFSes
 * (https://www.sqlite.org/walformat.html, §2.2): the first 96 bytes are two copies of a 48-byte
 * header that every commit rewrites (`iChange` counts transactions; `mxFrame`, salts and checksums
 * move too), while readers only touch bytes after them. So: same 96 bytes ⇒ no commit in between.
 * commit-watch.ts also checks this claim against data_version as it runs and stops using the
 * header at the first contradiction.
 *
 * The file descriptor is never closed. Closing ANY descriptor of a file drops every POSIX lock
 * the process holds on it, SQLite's own shm locks included (https://www.sqlite.org/howtocorrupt.html,
 * §2.2), and a connection to the same file may still be open anywhere in the process (the admin
 * CLI runs in-process in tests, next to the sandbox). One descriptor per distinct file, kept by
 * inode, is the price.
 */
import { fstatSync, openSync, readSync, statSync } from 'node:fs';
import { endianness } from 'node:os';

/** Two copies of the 48-byte WalIndexHdr. */
export const WAL_INDEX_HEADER_BYTES = 96;
const COPY_BYTES = 48;
/** `iVersion`, the first field: WALINDEX_MAX_VERSION since SQLite 3.7.0. */
const WAL_INDEX_VERSION = 3007000;
/** `isInit`, byte 12: 1 once the header is valid. */
const IS_INIT_OFFSET = 12;

/** Open descriptors by `dev:ino`: see the module comment for why they stay open. */
const descriptors = new Map<string, number>();

export class WalIndexHeader {
  private readonly scratch = Buffer.alloc(WAL_INDEX_HEADER_BYTES);

  private constructor(private readonly fd: number) {}

  /**
   * The header of `dbFile`'s WAL index, or undefined when it cannot be used (no `-shm` file yet,
   * not WAL mode, an unknown layout): callers then do without the shortcut. Open it while a
   * connection to the database is open, so the file is the one that connection uses.
   */
  static open(dbFile: string): WalIndexHeader | undefined {
    const path = `${dbFile}-shm`;
    try {
      const byPath = statSync(path, { bigint: true });
      const id = `${byPath.dev}:${byPath.ino}`;
      let fd = descriptors.get(id);
      if (fd === undefined) {
        fd = openSync(path, 'r');
        const opened = fstatSync(fd, { bigint: true });
        descriptors.set(`${opened.dev}:${opened.ino}`, fd);
        // Replaced between stat and open: not the file the connection uses.
        if (opened.dev !== byPath.dev || opened.ino !== byPath.ino) return undefined;
      }
      const header = new WalIndexHeader(fd);
      // A commit in progress can show two different copies for a moment: look again.
      for (let attempt = 0; attempt < 3; attempt++) {
        const bytes = header.read();
        if (bytes && looksValid(bytes)) return header;
      }
      return undefined;
    } catch {
      return undefined;
    }
  }

  /** The current 96 bytes in a buffer reused by the next call (copy it to keep it), or undefined if unreadable. */
  read(): Buffer | undefined {
    try {
      return readSync(this.fd, this.scratch, 0, WAL_INDEX_HEADER_BYTES, 0) === WAL_INDEX_HEADER_BYTES ? this.scratch : undefined;
    } catch {
      return undefined;
    }
  }
}

function looksValid(bytes: Buffer): boolean {
  // The WAL index is in native byte order.
  const version = endianness() === 'LE' ? bytes.readUInt32LE(0) : bytes.readUInt32BE(0);
  return version === WAL_INDEX_VERSION && bytes[IS_INIT_OFFSET] === 1 && bytes.subarray(0, COPY_BYTES).equals(bytes.subarray(COPY_BYTES, 2 * COPY_BYTES));
}
