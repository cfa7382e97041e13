import { describe, expect, it } from 'vitest';
import { readChatRequest } from './chat-request';

/** The 400 a body gets: its code, param and message. */
function refusal(body: Record<string, unknown>): { code?: string; param?: string; message: string } {
  try {
    readChatRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...body });
  } catch (e) {
    const error = e as { code?: string; param?: string; message: string };
    return { code: error.code, param: error.param, message: error.message };
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } };
const assistant = (toolCalls: unknown) => ({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', tool_calls: toolCalls }] });

describe('a chat request’s tool_calls and tool_choice', () => {
  it('read a call and a named choice', () => {
    const read = readChatRequest({ model: 'm', ...assistant([call]), tool_choice: { type: 'function', function: { name: 'f' } } });
    expect(read.turn.messages[1]).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'call_1', name: 'f', arguments: '{}' }] });
    expect(read.turn.toolChoice).toEqual({ type: 'function', name: 'f' });
  });

  it('refuse an unknown key first, as unsupported, before any other problem of its object', () => {
    expect(refusal(assistant([call, { type: 'x', extra: 1 }]))).toEqual({ code: 'unsupported_parameter', param: 'messages[1].tool_calls[1].extra', message: 'messages[1].tool_calls[1].extra is not supported: this server does not implement it' });
    expect(refusal({ tool_choice: { type: 'function', function: { name: 5, x: 1 } } })).toMatchObject({ code: 'unsupported_parameter', param: 'tool_choice.function.x' });
  });

  it('name each problem at its path, in the order type, function, id, the function’s name and arguments', () => {
    expect(refusal(assistant([{ id: 'a', type: 'tool', function: {} }]))).toEqual({ code: 'invalid_value', param: 'messages[1].tool_calls[0].type', message: 'messages[1].tool_calls[0].type: expected "function"' });
    expect(refusal(assistant([{ type: 'function', function: 'f' }])).param).toBe('messages[1].tool_calls[0].function');
    expect(refusal(assistant([{ type: 'function', function: {} }]))).toEqual({ code: 'invalid_value', param: 'messages[1].tool_calls[0].id', message: 'messages[1].tool_calls[0].id: missing' });
    expect(refusal(assistant([{ id: 'a', type: 'function', function: { name: 'f', arguments: 5 } }])).message).toBe('messages[1].tool_calls[0].function.arguments: expected a string');
    expect(refusal(assistant({})).message).toBe('messages[1].tool_calls: expected an array');
    expect(refusal({ tool_choice: 'sometimes' }).message).toBe('tool_choice: expected an object');
  });
});

describe('a message’s content', () => {
  it('joins text parts; a part of another type is unsupported before its unknown keys; a part’s text is required', () => {
    const read = readChatRequest({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }] });
    expect(read.turn.messages[0]).toMatchObject({ role: 'user', content: 'ab' });
    expect(refusal({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] })).toEqual({ code: 'unsupported_parameter', param: 'messages[0].content[0].type', message: 'messages[0].content[0].type is not supported: only text parts are supported (got "image_url"): Llama 3.1 reads text' });
    expect(refusal({ messages: [{ role: 'user', content: [{ type: 'text', text: 'a', x: 1 }] }] })).toMatchObject({ code: 'unsupported_parameter', param: 'messages[0].content[0].x' });
    expect(refusal({ messages: [{ role: 'user', content: [{ type: 'text' }] }] })).toEqual({ code: 'invalid_value', param: 'messages[0].content[0].text', message: 'messages[0].content[0].text: missing' });
    expect(refusal({ messages: [{ role: 'user', content: 5 }] }).message).toBe('messages[0].content: expected a string or an array of text parts');
  });
});
