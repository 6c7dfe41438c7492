// Runs in the browser before the app's own code: zod must never probe for eval there (lib/zod-without-eval.ts).
import "./lib/zod-without-eval";
import { installValidationMessages } from "./lib/runtime/validation-messages";

// The same validation messages as the server's (the playground checks a scenario as you type).
installValidationMessages();
