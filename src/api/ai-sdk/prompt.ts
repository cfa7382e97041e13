/**
 * The AI SDK's prompt (LanguageModelV3Prompt) → the surfaces' neutral messages. Tool-call parts keep
 * their ids, so tool-result parts map to the calls' positions exactly (src/api/to-transcript.ts);
 * results are written as runAgent writes a tool's return value: text as is, JSON as JSON with Python's
 * separators, errors as {"error": ...}. Parts Llama 3.1 cannot read (files, reasoning, provider-run
 * tools, approvals) are refused with UnsupportedFunctionalityError, never dropped.
 */
import { UnsupportedFunctionalityError, type LanguageModelV3Prompt, type LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import type { ApiMessage, ApiToolCall } from '../chat-types';

type Part = { type: string };

function refuse(where: string, part: Part): never {
  throw new UnsupportedFunctionalityError({ functionality: `${where}: ${part.type} parts`, message: `${where}: ${part.type} parts are not supported (Llama 3.1 reads text, tool calls and tool results)` });
}

export function toApiMessages(prompt: LanguageModelV3Prompt): ApiMessage[] {
  const out: ApiMessage[] = [];
  prompt.forEach((message, i) => {
    const source = `prompt[${i}]`;
    if (message.role === 'system') {
      out.push({ source, role: 'system', content: message.content });
    } else if (message.role === 'user') {
      out.push({ source, role: 'user', content: message.content.map((p) => (p.type === 'text' ? p.text : refuse(source, p))).join('') });
    } else if (message.role === 'assistant') {
      let content = '';
      const toolCalls: ApiToolCall[] = [];
      for (const p of message.content) {
        if (p.type === 'text') content += p.text;
        else if (p.type === 'tool-call' && !p.providerExecuted) toolCalls.push({ id: p.toolCallId, name: p.toolName, arguments: typeof p.input === 'string' ? p.input : JSON.stringify(p.input) });
        else refuse(source, p);
      }
      out.push({ source, role: 'assistant', content, toolCalls });
    } else {
      message.content.forEach((p, j) => {
        if (p.type !== 'tool-result') refuse(source, p);
        out.push({ source: `${source}.content[${j}]`, role: 'tool', toolCallId: p.toolCallId, content: resultContent(p.output, p.toolName, source) });
      });
    }
  });
  return out;
}

/** A tool result's output as the ipython turn's content (a string as is, anything else as JSON). */
function resultContent(output: LanguageModelV3ToolResultOutput, toolName: string, where: string): string | object {
  switch (output.type) {
    case 'text':
      return output.value;
    case 'json':
      return output.value as string | object; // written as runAgent writes a return value (src/tools/tool-result.ts)
    case 'error-text':
      return { error: output.value };
    case 'error-json':
      return { error: output.value };
    case 'execution-denied':
      return { error: `the user declined to run ${toolName}${output.reason ? `: ${output.reason}` : ''}` };
    case 'content':
      return output.value.map((p) => (p.type === 'text' ? p.text : refuse(`${where} (a ${toolName} result)`, p))).join('');
  }
}
