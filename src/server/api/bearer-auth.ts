import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../../api/api-error';

/**
 * With a key configured, every request must carry `Authorization: Bearer <key>` (compared in constant
 * time, over digests so lengths leak nothing); a missing or wrong key is a 401. Without a key, all pass.
 */
export function checkBearer(req: IncomingMessage, key: string | undefined): void {
  if (key === undefined) return;
  const header = req.headers.authorization ?? '';
  const given = /^Bearer (.+)$/.exec(header)?.[1] ?? '';
  const digest = (s: string) => createHash('sha256').update(s).digest();
  if (given === '' || !timingSafeEqual(digest(given), digest(key))) {
    throw new ApiError(401, 'authentication_error', 'invalid_api_key', given === '' ? 'missing the API key: send Authorization: Bearer <key>' : 'the API key is not valid');
  }
}
