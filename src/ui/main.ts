// Placeholder chat page: replaced by the product surfaces issue.
const app = document.querySelector<HTMLDivElement>('#app');
if (app) app.textContent = 'Llama 3.1 agent: the engine is being built.';
