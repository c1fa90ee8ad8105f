/**
 * The desk's thumbnail: a PNG of the page in front, kept as a file in the store (the
 * panel shows the last one, in every window) or handed back as a `data:` URL.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../atomicFile';

/** CSS pixels: wide enough to read a report's headline in the panel, small enough to post to a webview. */
export const THUMBNAIL_MAX_WIDTH = 480;
/** A thumbnail file larger than this is not shown (a 480-pixel-wide PNG is far smaller). */
export const THUMBNAIL_MAX_BYTES = 1024 * 1024;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Writes the PNG to `file` (atomically) and returns the path; without a file, returns a data: URL. */
export async function keepThumbnail(png: Buffer, file: string | undefined): Promise<string> {
  if (!file) return dataUrl(png);
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, png);
  return file;
}

/** The thumbnail file as a data: URL for a webview; undefined when there is none, or it is no PNG or too large. */
export async function readThumbnail(file: string): Promise<string | undefined> {
  let png: Buffer;
  try {
    const st = await fsp.stat(file);
    if (!st.isFile() || st.size > THUMBNAIL_MAX_BYTES) return undefined;
    png = await fsp.readFile(file);
  } catch {
    return undefined;
  }
  return png.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE) ? dataUrl(png) : undefined;
}

function dataUrl(png: Buffer): string {
  return `data:image/png;base64,${png.toString('base64')}`;
}
