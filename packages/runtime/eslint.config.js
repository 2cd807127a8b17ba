import { agentqConfig } from "@agentq/eslint-config";
export default agentqConfig({ tsconfigRootDir: import.meta.dirname, core: false });
