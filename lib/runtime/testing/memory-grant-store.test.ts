import { describeGrantStoreContract } from "../grants/grant-store.contract";
import { createMemoryGrantStore } from "./memory-grant-store";

describeGrantStoreContract("memory", async () => ({
  store: createMemoryGrantStore(),
  close: async () => {},
}));
