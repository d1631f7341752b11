// karpenter-proxmox: reads the settings, then runs the controller (or a subcommand).
// Bad settings end here with one line on stderr and exit code 2, before anything starts.
#include <cstdio>
#include <string>
#include <vector>

#include "cmd/karpenter-proxmox/plan/plan_command.hpp"
#include "cmd/karpenter-proxmox/run_controller.hpp"
#include "cmd/karpenter-proxmox/view/view_command.hpp"
#include "config/command_line.hpp"
#include "config/settings_help.hpp"
#include "sim/lab/lab_command.hpp"
#include "version.hpp"

int main(int argc, char** argv) {
  const std::string program = "karpenter-proxmox";
  std::vector<std::string> args(argv + 1, argv + argc);
  auto command = kp::config::parse_command_line(args, kp::config::process_environment());
  if (!command) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), command.error().message.c_str());
    return 2;
  }
  if (command->help) {
    std::fputs(kp::config::render_help(program).c_str(), stdout);
    return 0;
  }
  if (command->version) {
    std::printf("%s %s\n", program.c_str(), kp::version);
    return 0;
  }
  if (command->settings_markdown) {
    std::fputs(kp::config::render_settings_markdown().c_str(), stdout);
    return 0;
  }
  if (!command->arguments.empty()) {
    const std::string& sub = command->arguments.front();
    if (sub == "lab") {
      return kp::lab::run_lab_command(
          std::vector<std::string>(command->arguments.begin() + 1, command->arguments.end()),
          argv[0]);
    }
    if (sub == "plan") {
      return kp::plan::run_plan_command(
          std::vector<std::string>(command->arguments.begin() + 1, command->arguments.end()),
          command->values);
    }
    if (sub == "view") {
      return kp::view::run_view_command(
          std::vector<std::string>(command->arguments.begin() + 1, command->arguments.end()),
          command->values);
    }
    std::fprintf(stderr,
                 "%s: unknown command \"%s\": expected no arguments, `lab`, `plan` or `view`\n",
                 program.c_str(), sub.c_str());
    return 2;
  }
  return kp::cmd::run_controller(command->values);
}
