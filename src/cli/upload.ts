import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { FileUploadInput } from '../wire/types.js';
import { CliError } from './errors.js';
import { mimeTypeFor } from './mime.js';

/** Reads a local file into an upload request; a missing or unreadable file is reported with its path. */
export async function readUpload(path: string): Promise<FileUploadInput> {
  let content: Buffer;
  try {
    content = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a directory' : 'cannot be read';
    throw new CliError('validation_error', `file ${path} ${why}`, 'check the path passed to --file / files upload');
  }
  return { filename: basename(path), mimetype: mimeTypeFor(path), content: new Uint8Array(content) };
}
