#include "promsource/aws_credentials.h"

#include <cstdlib>
#include <fstream>
#include <map>

#include "core/strings.h"

namespace gpucost::promsource {
namespace {

using Section = std::map<std::string, std::string>;

// The key/value pairs of section `name` of an INI file; nullopt when the file or the section
// is missing.
std::optional<Section> ReadIniSection(const std::string& path, std::string_view name) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::optional<Section> out;
  bool inside = false;
  std::string line;
  while (std::getline(in, line)) {
    const std::string_view t = Trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[' && t.back() == ']') {
      inside = Trim(t.substr(1, t.size() - 2)) == name;
      if (inside && !out) out.emplace();
      continue;
    }
    if (!inside) continue;
    const size_t eq = t.find('=');
    if (eq == std::string_view::npos) continue;
    (*out)[ToLower(Trim(t.substr(0, eq)))] = std::string(Trim(t.substr(eq + 1)));
  }
  return out;
}

std::string Env(const EnvLookup& env, std::string_view name) {
  const std::optional<std::string> v = env(name);
  return v ? *v : "";
}

std::string ProfileName(std::string_view profile, const EnvLookup& env) {
  if (!profile.empty()) return std::string(profile);
  const std::string p = Env(env, "AWS_PROFILE");
  return p.empty() ? "default" : p;
}

std::string AwsFile(const EnvLookup& env, std::string_view var, std::string_view leaf) {
  const std::string set = Env(env, var);
  if (!set.empty()) return set;
  return StrCat(Env(env, "HOME"), "/.aws/", leaf);
}

// The profile's section of the config file: "[default]" or "[profile NAME]".
std::optional<Section> ConfigSection(const std::string& profile, const EnvLookup& env) {
  const std::string path = AwsFile(env, "AWS_CONFIG_FILE", "config");
  if (profile == "default") {
    if (auto s = ReadIniSection(path, "default")) return s;
  }
  return ReadIniSection(path, StrCat("profile ", profile));
}

}  // namespace

EnvLookup ProcessEnv() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

Result<AwsCredentials> LoadAwsCredentials(std::string_view profile, const EnvLookup& env) {
  if (profile.empty()) {
    AwsCredentials c{Env(env, "AWS_ACCESS_KEY_ID"), Env(env, "AWS_SECRET_ACCESS_KEY"),
                     Env(env, "AWS_SESSION_TOKEN")};
    if (!c.access_key_id.empty() && !c.secret_access_key.empty()) return c;
    if (!c.access_key_id.empty() || !c.secret_access_key.empty()) {
      return Status::InvalidArgument(
          "AWS credentials: only one of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY is set");
    }
  }
  const std::string name = ProfileName(profile, env);
  const std::string cred_path = AwsFile(env, "AWS_SHARED_CREDENTIALS_FILE", "credentials");
  const std::string config_path = AwsFile(env, "AWS_CONFIG_FILE", "config");
  // The credentials file wins over the config file, key by key.
  Section merged;
  const std::optional<Section> config = ConfigSection(name, env);
  if (config) merged = *config;
  const std::optional<Section> creds = ReadIniSection(cred_path, name);
  if (creds) {
    for (const auto& [k, v] : *creds) merged[k] = v;
  }
  if (!config && !creds) {
    return Status::NotFound(StrCat("AWS credentials: no keys in the environment and no profile \"",
                                   name, "\" in ", cred_path, " or ", config_path));
  }
  AwsCredentials c{merged["aws_access_key_id"], merged["aws_secret_access_key"],
                   merged["aws_session_token"]};
  if (!c.access_key_id.empty() && !c.secret_access_key.empty()) return c;
  for (const char* unsupported : {"role_arn", "sso_start_url", "sso_session", "credential_process",
                                  "web_identity_token_file"}) {
    if (merged.count(unsupported) != 0) {
      return Status::Unimplemented(StrCat(
          "AWS profile \"", name, "\" uses ", unsupported,
          ", which gpucost does not resolve; export temporary keys into AWS_ACCESS_KEY_ID, "
          "AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (e.g. with `aws configure "
          "export-credentials --format env`)"));
    }
  }
  return Status::InvalidArgument(StrCat("AWS profile \"", name,
                                        "\" has no aws_access_key_id and aws_secret_access_key (",
                                        cred_path, ", ", config_path, ")"));
}

std::string FindAwsRegion(std::string_view profile, const EnvLookup& env) {
  for (const char* var : {"AWS_REGION", "AWS_DEFAULT_REGION"}) {
    if (std::string r = Env(env, var); !r.empty()) return r;
  }
  const std::optional<Section> config = ConfigSection(ProfileName(profile, env), env);
  if (config) {
    if (const auto it = config->find("region"); it != config->end()) return it->second;
  }
  return "";
}

}  // namespace gpucost::promsource
