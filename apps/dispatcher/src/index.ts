export { startPeriodicTasks } from "./periodic-task.ts";
export type { PeriodicTask, PeriodicTaskObserver } from "./periodic-task.ts";
export { maintenanceTasks, DEFAULT_MAINTENANCE_INTERVALS } from "./maintenance-tasks.ts";
export type { MaintenanceIntervals } from "./maintenance-tasks.ts";
export { outboxDispatchTask, defaultDispatcherSettings } from "./outbox-dispatch-task.ts";
export type { OutboxDispatcherSettings } from "./outbox-dispatch-task.ts";
export { logExhausted } from "./log-exhausted.ts";
