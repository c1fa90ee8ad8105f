/**
 * The few file-system calls the store makes, behind an interface so that tests can inject
 * disk faults (EROFS, ENOSPC, EPERM, EIO; test/unit/fixtures/faultyFs.ts). Running as root ignores
 * `chmod`, so permission-based fault tests do not work; injection does.
 */
import { closeSync, mkdirSync, openSync, promises as fsp, readdirSync, readFileSync, readSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';

export interface FileHandleSeam {
  writeFile(data: Uint8Array | string): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface StatSeam {
  /** With size and mtime, identifies one version of a file (every atomic write makes a new inode). */
  ino?: number;
  size: number;
  mtimeMs: number;
  mtime: Date;
  isDirectory(): boolean;
}

export interface FsSeam {
  readFile(path: string): Promise<Buffer>;
  writeFile(path: string, data: Uint8Array | string): Promise<void>;
  /** `flags` as for `fs.open` (`'wx'` for a new temp file, `'r'` for a directory to fsync). */
  open(path: string, flags: string, mode?: number): Promise<FileHandleSeam>;
  rename(from: string, to: string): Promise<void>;
  stat(path: string): Promise<StatSeam>;
  mkdir(path: string): Promise<void>;
  unlink(path: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
  /**
   * Reads a whole file into `into` (a larger buffer only when it does not fit) and returns a view of
   * the bytes read: nothing allocated for a file read again and again. `size` is the size a stat
   * just found: a short read at or past it is the end of the file. Optional: a seam without it is
   * read with readFile.
   */
  readInto?(path: string, into: Buffer, size: number): Promise<Buffer>;
}

/**
 * Node's file system. The calls on small files and on metadata are synchronous inside: each takes
 * microseconds, and a trip through libuv's thread pool costs more CPU than the call itself (a
 * dispatcher makes dozens per pass). Only the table's own write (write, fsync, close) goes through
 * file handles, off the event loop.
 */
export const nodeFs: FsSeam = {
  readFile: async (p) => readFileSync(p),
  writeFile: async (p, data) => writeFileSync(p, data),
  open: (p, flags, mode) => fsp.open(p, flags, mode),
  rename: async (a, b) => renameSync(a, b),
  stat: async (p) => statSync(p),
  mkdir: async (p) => {
    mkdirSync(p, { recursive: true });
  },
  unlink: async (p) => unlinkSync(p),
  readdir: async (p) => readdirSync(p),
  readInto: async (p, into, size) => {
    const fd = openSync(p, 'r');
    try {
      let buf = into;
      let n = 0;
      for (;;) {
        if (n === buf.length) {
          const bigger = Buffer.allocUnsafeSlow(Math.max(64 * 1024, 2 * buf.length));
          buf.copy(bigger, 0, 0, n);
          buf = bigger;
        }
        const got = readSync(fd, buf, n, buf.length - n, n);
        n += got;
        // A regular file reads short only at its end (Node's readFile trusts fstat the same way).
        if (got === 0 || (n >= size && n < buf.length)) return buf.subarray(0, n);
      }
    } finally {
      closeSync(fd);
    }
  },
};
