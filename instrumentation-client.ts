// Runs in the browser before the app's own code: zod must never probe for eval there (lib/zod-without-eval.ts).
import "./lib/zod-without-eval";
