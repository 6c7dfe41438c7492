import { describeRunStoreContract } from "../run/run-store.contract";
import { createMemoryRunStore } from "./memory-run-store";

describeRunStoreContract("in memory", async () => ({ store: createMemoryRunStore(), close: async () => {} }));
