/**
 * Made-up sport events for the training corpus's winner questions, and who won them.
 *
 * `plain` (the frozen recipes): "<made-up name> <kind>", won by someone from world.ts's pools. `varied` (the
 * mixed-names recipes): the forms real new events take — a known city with a kind ("London Marathon" is new only as a
 * pair), two words, a prefix ("Women's …", "Tour de …") — and winners partly made up, so that the event and the
 * winner are copied from the question and the result instead of recalled from the ten training events.
 *
 * Invariant (varied): every name is accepted by the pieces' `accept` (no id of the new names, every id a
 * learned or frozen piece) and holds none of world.ts's events, so the held-out events stay unseen.
 */
import { syntheticName, type NamePieces } from './synthetic-names';
import type { Rng } from './rng';
import { EVENTS, FIRST_NAMES, POPULATION_CITIES, WEATHER_CITIES, type SportEvent } from './world';

export interface MadeUpEvent {
  event: SportEvent;
  /** The winner, when made up here; otherwise drawn from the event's winner kind (dialogues.ts winnerOf). */
  winner?: string;
}

const PLAIN_KINDS = ['Open', 'Marathon', 'Prize', 'Cup', 'Trophy'] as const;
const VARIED_KINDS = [...PLAIN_KINDS, 'Classic', 'Games', 'Derby', 'Series', 'Rally'] as const;
type Kind = (typeof VARIED_KINDS)[number];

/** Cities asked about in both roles in training: their ids are learned, and a pairing with a kind is new. */
const TRAINING_CITIES: readonly string[] = (() => {
  const weather = new Set(WEATHER_CITIES.train.map((c) => c.name));
  return POPULATION_CITIES.train.map((c) => c.name).filter((n) => weather.has(n));
})();

const REAL_EVENTS: readonly string[] = [...EVENTS.train, ...EVENTS.heldOut].map((e) => e.name);

/** A plain made-up event: "the Velmo Open" is won by a person, "the Velmo Cup" by a country. */
export function plainEvent(rng: Rng, pieces?: NamePieces): MadeUpEvent {
  const kind = rng.pick(PLAIN_KINDS);
  return { event: { name: `${syntheticName(rng, pieces)} ${kind}`, winner: kind === 'Cup' ? 'country' : kind === 'Trophy' ? 'club' : 'person' } };
}

/** A made-up event of a varied form, and half the time a made-up winner. */
export function variedEvent(rng: Rng, pieces: NamePieces): MadeUpEvent {
  for (let tries = 0; tries < 100; tries++) {
    const kind = rng.pick(VARIED_KINDS);
    const word = () => (rng.chance(0.5) ? rng.pick(TRAINING_CITIES) : syntheticName(rng, pieces));
    const form = rng.weighted({ one: 3, two: 1, prefix: 1, tour: 1 });
    const name = form === 'one' ? `${word()} ${kind}`
      : form === 'two' ? `${syntheticName(rng, pieces)} ${word()} ${kind}`
        : form === 'prefix' ? `${rng.pick(['Women\'s', 'Men\'s', 'Junior'])} ${word()} ${kind}`
          : `Tour de ${syntheticName(rng, pieces)}`;
    // "Women's London Marathon" would show a held-out event: no real event inside a made-up one.
    if (REAL_EVENTS.some((e) => name.includes(e)) || !(pieces.accept?.(name) ?? true)) continue;
    return winnerFor(rng, pieces, name, form === 'tour' ? 'Open' : kind);
  }
  throw new Error('varied events: no accepted name in 100 draws (the pieces\' accept refuses every form)');
}

function winnerFor(rng: Rng, pieces: NamePieces, name: string, kind: Kind): MadeUpEvent {
  const madeUp = rng.chance(0.5);
  if (kind === 'Cup' || kind === 'Games') {
    return { event: { name, winner: 'country' }, ...(madeUp && { winner: syntheticName(rng, pieces) }) };
  }
  if (kind === 'Trophy' || kind === 'Derby' || kind === 'Series') {
    return { event: { name, winner: 'club' }, ...(madeUp && { winner: `the ${rng.pick(TRAINING_CITIES)} ${syntheticName(rng, pieces)}` }) };
  }
  return { event: { name, winner: 'person' }, ...(madeUp && { winner: `${rng.pick(FIRST_NAMES)} ${syntheticName(rng, pieces)}` }) };
}
