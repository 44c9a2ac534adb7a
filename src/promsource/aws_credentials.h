// AWS credentials and region the way the AWS CLI and SDKs find them: the environment
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION/AWS_DEFAULT_REGION),
// then the profile (flag, else AWS_PROFILE, else "default") in the shared credentials file
// (AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials) and the config file (AWS_CONFIG_FILE,
// else ~/.aws/config, where profiles are "[profile NAME]"). Static keys only: a profile that
// needs role assumption, SSO or a credential process is an error that says so. Thread-compatible.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "promsource/sigv4.h"

namespace gpucost::promsource {

// Reads an environment variable (tests substitute their own).
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;
EnvLookup ProcessEnv();

// `profile`: the profile asked for by flag; empty means AWS_PROFILE or "default". An explicit
// profile is read from the files even when the environment holds keys.
Result<AwsCredentials> LoadAwsCredentials(std::string_view profile, const EnvLookup& env);

// AWS_REGION, AWS_DEFAULT_REGION, then the profile's `region` in the config file; "" if none.
std::string FindAwsRegion(std::string_view profile, const EnvLookup& env);

}  // namespace gpucost::promsource
