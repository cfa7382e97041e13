// The widget and the engine API side by side, from the installed package only, bundled by webpack 5.
import { startEngine } from 'llama-agent-web';
import { renderPrompt } from 'llama-agent-web/format';
import { LlamaChatElement } from 'llama-agent-web/widget';

const ASSETS = '/llama-assets/';

// The engine API directly: its own worker, asked what this browser can run.
const engine = startEngine({ assets: ASSETS });
const caps = await engine.capabilities();
document.querySelector('#engine').textContent = caps.webgpu ? `WebGPU: ${caps.adapter?.vendor ?? 'an adapter'}` : `No WebGPU here (${caps.reason ?? 'unknown'}): ONNX models run on WASM.`;

// The prompt the engine would see for a first question.
document.querySelector('#prompt').textContent = renderPrompt({ messages: [{ role: 'user', content: 'What is 123 * 45?' }], builtinTools: ['wolfram_alpha'] });

// The widget: registered by the import above; a host tool and its answers.
const chat = document.querySelector('llama-chat');
if (!(chat instanceof LlamaChatElement)) throw new Error('<llama-chat> is not defined');
chat.registerTool({
  name: 'get_opening_hours',
  description: 'Opening hours on a weekday',
  readOnly: true,
  parameters: { type: 'object', properties: { day: { type: 'string' } }, required: ['day'] },
  execute: (args) => ({ day: args.day, open: '07:00', close: '18:00' }),
});
chat.addEventListener('llama-answer', (e) => console.log(e.detail.text));
