/**
 * `serving`: several clients on `npm run serve`'s server (serving-workloads.ts), the engine on ONNX with
 * serve's default slots. `cachedShareInterleaved`: two conversations interleaved, their second turns'
 * cached prompt ids ÷ the same turns alone (goal ≥ 0.95; `…OneSlot` is the same on one KV cache).
 * `shortBehindLongRatio`: a max_tokens-8 request's median latency sent during a 1,500-token generation
 * ÷ alone (goal ≤ 4). The long generation runs on the tiny model: the micro model's context (1,024)
 * cannot hold 1,500 tokens.
 * With a real llama-server (built by `npm run build:llama-server`): `llamacppVsServerDecode`
 * (llamacpp-decode.ts, goal ≥ 0.9) and `concurrentVsSequentialWall` (serving-remote.ts, goal ≤ 0.5).
 */
import { DEFAULT_SLOTS } from '../src/cli/commands/serve';
import { median, round } from './measure';
import type { BenchSection } from './section';
import { llamacppVsServerDecode } from './llamacpp-decode';
import { concurrentVsSequentialWall } from './serving-remote';
import { measureInterleavedShare, measureShortBehindLong } from './serving-workloads';

const SHARE_MODEL = 'micro-llama';
const LONG_MODEL = 'tiny-llama';
const LONG_TOKENS = 1500;

export const servingSection: BenchSection = {
  name: 'serving',
  summary: `several clients on serve's server (ONNX, ${DEFAULT_SLOTS} slots): cache reuse interleaved, a short request during a long one`,
  async run() {
    const share = await measureInterleavedShare(SHARE_MODEL, DEFAULT_SLOTS);
    const oneSlot = await measureInterleavedShare(SHARE_MODEL, 1);
    const behind = await measureShortBehindLong({ model: LONG_MODEL, slots: DEFAULT_SLOTS, longTokens: LONG_TOKENS, rounds: 3, shortsPerRound: 5 });
    const aloneMs = median(behind.aloneMs);
    const duringMs = median(behind.duringMs);
    const ratio = duringMs / aloneMs;
    const decode = await llamacppVsServerDecode();
    const wall = await concurrentVsSequentialWall();
    return {
      slots: DEFAULT_SLOTS,
      cachedShareInterleaved: round(share.share),
      interleavedCached: share.interleavedCached,
      aloneCached: share.aloneCached,
      cachedShareInterleavedOneSlot: round(oneSlot.share),
      shortBehindLongRatio: round(ratio),
      shortAloneMsMedian: round(aloneMs),
      shortDuringLongMsMedian: round(duringMs),
      longTokens: LONG_TOKENS,
      longModel: LONG_MODEL,
      ...decode,
      ...wall,
      targets: [
        `${share.share >= 0.95 ? 'met' : 'MISSED'} share >= 0.95`,
        `${ratio <= 4 ? 'met' : 'MISSED'} ratio <= 4`,
        `${decode.llamacppVsServerDecode >= 0.9 ? 'met' : 'MISSED'} llamacpp >= 0.9`,
        `${wall.concurrentVsSequentialWall <= 0.5 ? 'met' : 'MISSED'} wall <= 0.5`,
      ].join(', '),
    };
  },
};
