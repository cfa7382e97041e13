import type { IncomingMessage } from 'node:http';
import { ApiError } from '../../api/api-error';

/** Requests larger than this are refused (413) before they are read into memory. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** The request's body as JSON. Throws ApiError: 413 past the limit, 400 `invalid_json` naming the parse error. */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new ApiError(413, 'invalid_request_error', 'request_too_large', `the request body is larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ApiError(400, 'invalid_request_error', 'invalid_json', `the request body is not valid JSON: ${(e as Error).message}`);
  }
}
