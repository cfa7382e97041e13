/** The package's AI SDK entry (`llama-agent-web/ai-sdk`): the engine as an AI SDK language model (`generateText`, `streamText`). */
export { llama31, type Llama31Settings } from '../api/ai-sdk/llama31';
export type { ApiEngine, SurfaceOptions } from '../api/api-engine';
