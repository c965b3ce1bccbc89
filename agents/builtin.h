// Entry points of the built-in agents (one file each); the registry in agent.cc lists them.
#pragma once
#include "agents/agent.h"

namespace lw {
Status run_qlearning(DeploymentEnv& env, const AgentRequest& req, SearchResult* out);
Status run_random(DeploymentEnv& env, const AgentRequest& req, SearchResult* out);
Status run_greedy(DeploymentEnv& env, const AgentRequest& req, SearchResult* out);
Status run_greedy_penalty(DeploymentEnv& env, const AgentRequest& req, SearchResult* out);
Status run_dijkstra(DeploymentEnv& env, const AgentRequest& req, SearchResult* out);
Status run_astar(DeploymentEnv& env, const AgentRequest& req, SearchResult* out);
Status run_exact(DeploymentEnv& env, const AgentRequest& req, SearchResult* out);
Status run_ilp(DeploymentEnv& env, const AgentRequest& req, SearchResult* out);
}  // namespace lw
