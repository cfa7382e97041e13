/** Whether this code runs in Node (the CLI's engine) rather than a browser worker; read without Node's types. */
export const IN_NODE = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node !== undefined;
