/**
 * Where a page's heavy assets live, from one base URL (the folder `llama-agent-assets copy` fills):
 * `models/` (the tokenizer, local models), `ort/` (onnxruntime-web's WASM) and `pyodide/`.
 */
export interface AssetUrls {
  modelsBaseUrl: string;
  wasmBaseUrl: string;
  pyodideBaseUrl: string;
}

/** `assets` is resolved against the page (a path such as `/llama-assets/` works); it must be a folder. */
export function assetUrls(assets: string, page: string = globalThis.location?.href ?? 'http://localhost/'): AssetUrls {
  let base: URL;
  try {
    base = new URL(assets, page);
  } catch {
    throw new TypeError(`assets: "${assets}" is not a URL or a path`);
  }
  const folder = base.href.endsWith('/') ? base.href : `${base.href}/`;
  return { modelsBaseUrl: `${folder}models/`, wasmBaseUrl: `${folder}ort/`, pyodideBaseUrl: `${folder}pyodide/` };
}
