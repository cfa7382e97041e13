// Compile-time checks: no value the package exports is typed `any` (tsc --noEmit fails otherwise).
import type * as Engine from 'llama-agent-web';
import type * as Agent from 'llama-agent-web/agent';
import type * as Format from 'llama-agent-web/format';
import type * as OpenAi from 'llama-agent-web/openai';
import type * as AiSdk from 'llama-agent-web/ai-sdk';
import type * as Widget from 'llama-agent-web/widget';

type IsAny<T> = 0 extends 1 & T ? true : false;
/** The names of a module's exports whose type is `any` (never when there is none). */
type AnyExports<M> = { [K in keyof M]: IsAny<M[K]> extends true ? K : never }[keyof M];
type None<T extends never> = T;

export type Checked = [
  None<AnyExports<typeof Engine>>,
  None<AnyExports<typeof Agent>>,
  None<AnyExports<typeof Format>>,
  None<AnyExports<typeof OpenAi>>,
  None<AnyExports<typeof AiSdk>>,
  None<AnyExports<typeof Widget>>,
  // Exported types the examples rely on.
  None<IsAny<Engine.GpuCapabilities> extends true ? 'GpuCapabilities' : never>,
  None<IsAny<Engine.LoadedModelInfo> extends true ? 'LoadedModelInfo' : never>,
  None<IsAny<Agent.AgentEvent> extends true ? 'AgentEvent' : never>,
  None<IsAny<Agent.Tool> extends true ? 'Tool' : never>,
  None<IsAny<Format.Message> extends true ? 'Message' : never>,
  None<IsAny<OpenAi.ChatCompletion> extends true ? 'ChatCompletion' : never>,
  None<IsAny<ReturnType<typeof AiSdk.llama31>> extends true ? 'LanguageModel' : never>,
];
