/**
 * The package's prompt-format entry (`llama-agent-web/format`): Llama 3.1's prompt rendered to text or
 * ids, the model's output parsed, and the tokenizer built from a tokenizer.json.
 */
export { renderPrompt, renderIds } from '../format/render';
export { parseAssistantOutput, parseEmitted } from '../format/parse';
export { createTokenizer } from '../format/tokenizer/llama-tokenizer';
export { fetchTokenizer, tokenizerUrl } from '../format/tokenizer/fetch-tokenizer';
export type {
  CallArguments,
  Conversation,
  InputMessage,
  EmittedMessage,
  Message,
  ParsedOutput,
  RenderOptions,
  Role,
  TextTokenizer,
  ToolCall,
  BuiltinToolName,
} from '../format/types';
