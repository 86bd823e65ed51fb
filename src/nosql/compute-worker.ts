// The entry of the document compute threads (ComputePool in server.ts starts it): the document tasks, served.
import { serveTasks } from '../compute/worker.js';
import { documentTasks } from './compute-tasks.js';

serveTasks(documentTasks);
