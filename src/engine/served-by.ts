/** What this project's server calls itself in `GET /v1/models` (`owned_by`): how an engine client in front of it knows it. */
export const SERVED_BY = 'llama-agent-web';
