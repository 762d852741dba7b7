import { basename } from 'node:path';
import type { FileUploadInput } from '../wire/types.js';
import { MAX_FILE_BYTES } from '../wire/limits.js';
import { InputTooLarge, readBytesWithin } from './bounded-input.js';
import { CliError } from './errors.js';
import { InputOpenError, openInput } from './input-source.js';
import { mimeTypeFor } from './mime.js';

/**
 * Reads a local file into an upload request (`--file`, `svc files upload`). A missing or unreadable file is
 * reported with its path; one past the upload limit is refused once the limit is passed, without reading on.
 */
export async function readUpload(path: string): Promise<FileUploadInput> {
  let content: Uint8Array;
  try {
    content = await readBytesWithin(await openInput(path), MAX_FILE_BYTES);
  } catch (error) {
    if (error instanceof InputTooLarge) {
      throw new CliError(
        'payload_too_large',
        `file ${path} is larger than ${MAX_FILE_BYTES} bytes (${MAX_FILE_BYTES / 1024 / 1024} MiB), the largest upload svc accepts`,
        'nothing was uploaded; send a smaller file',
      );
    }
    const why = error instanceof InputOpenError ? error.message : `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'EIO'})`;
    throw new CliError('validation_error', `file ${path} ${why}`, 'check the path passed to --file / files upload');
  }
  return { filename: basename(path), mimetype: mimeTypeFor(path), content };
}
