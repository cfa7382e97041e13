// For tsconfig.worker.json: transformers.js's image types import `sharp` (a Node-only image library) whose
// types pull in all of Node's. The worker never decodes an image, so there `sharp` is this empty module,
// and the worker is checked without Node's globals.
declare const sharp: never;
export default sharp;
