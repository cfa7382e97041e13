/** Every bench section, in run order: the one list `npm run bench` knows. Add a section here. */
import { engineSection } from './engine';
import { grammarSection } from './grammar';
import { loopSection } from './loop';
import { contextSection } from './context';
import { microSection } from './micro';
import { peersSection } from './peers';
import { remoteSection } from './remote';
import { samplerSection } from './sampler';
import { sandboxSection } from './sandbox';
import type { BenchSection } from './section';
import { servingSection } from './serving';

export const SECTIONS: readonly BenchSection[] = [samplerSection, loopSection, contextSection, engineSection, sandboxSection, microSection, peersSection, remoteSection, grammarSection, servingSection];
