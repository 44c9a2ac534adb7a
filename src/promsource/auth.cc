#include "promsource/auth.h"

#include <openssl/evp.h>

#include <fstream>
#include <sstream>

#include "core/strings.h"
#include "promsource/sigv4.h"

namespace gpucost::promsource {
namespace {

// The file's content without trailing line breaks and spaces; an error naming the file when it
// cannot be read or is empty.
Result<std::string> ReadSecretFile(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(StrCat("cannot read the ", what, " file ", path));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' ||
                        s.back() == '\t')) {
    s.pop_back();
  }
  if (s.empty()) return Status::InvalidArgument(StrCat("the ", what, " file ", path, " is empty"));
  return s;
}

void SetAuthorization(HttpRequest& request, std::string value) {
  std::erase_if(request.headers, [](const auto& h) { return ToLower(h.first) == "authorization"; });
  request.headers.emplace_back("Authorization", std::move(value));
}

}  // namespace

std::string BasicAuthorization(std::string_view user, std::string_view password) {
  const std::string plain = StrCat(user, ":", password);
  std::string out(4 * ((plain.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(plain.data()),
                                static_cast<int>(plain.size()));
  out.resize(static_cast<size_t>(n));
  return StrCat("Basic ", out);
}

Result<RequestDecorator> MakeAuthDecorator(const AuthOptions& options,
                                           std::shared_ptr<const Clock> clock, EnvLookup env) {
  const bool bearer = !options.bearer_token_file.empty() || !options.bearer_token_env.empty();
  const bool basic = !options.basic_user.empty() || !options.basic_password_file.empty();
  if (int{bearer} + int{basic} + int{options.sigv4} > 1) {
    return Status::InvalidArgument(
        "choose one authentication: a bearer token, basic auth or SigV4");
  }
  if (!options.bearer_token_file.empty() && !options.bearer_token_env.empty()) {
    return Status::InvalidArgument("give the bearer token by file or by environment, not both");
  }
  if (!options.bearer_token_file.empty()) {
    // Fail now rather than at the first request.
    GPUCOST_RETURN_IF_ERROR(ReadSecretFile(options.bearer_token_file, "bearer token").status());
    return RequestDecorator([path = options.bearer_token_file](HttpRequest& r) -> Status {
      GPUCOST_ASSIGN_OR_RETURN(std::string token, ReadSecretFile(path, "bearer token"));
      SetAuthorization(r, StrCat("Bearer ", token));
      return Status::Ok();
    });
  }
  if (!options.bearer_token_env.empty()) {
    const std::optional<std::string> token = env(options.bearer_token_env);
    if (!token || Trim(*token).empty()) {
      return Status::InvalidArgument(StrCat("the bearer token variable ", options.bearer_token_env,
                                            " is not set or empty"));
    }
    return RequestDecorator([value = StrCat("Bearer ", Trim(*token))](HttpRequest& r) {
      SetAuthorization(r, value);
      return Status::Ok();
    });
  }
  if (basic) {
    if (options.basic_user.empty() || options.basic_password_file.empty()) {
      return Status::InvalidArgument("basic auth needs both a user and a password file");
    }
    GPUCOST_RETURN_IF_ERROR(ReadSecretFile(options.basic_password_file, "password").status());
    return RequestDecorator([user = options.basic_user,
                             path = options.basic_password_file](HttpRequest& r) -> Status {
      GPUCOST_ASSIGN_OR_RETURN(std::string password, ReadSecretFile(path, "password"));
      SetAuthorization(r, BasicAuthorization(user, password));
      return Status::Ok();
    });
  }
  if (options.sigv4) {
    SigV4Params params;
    params.service = options.sigv4_service;
    params.region = options.sigv4_region.empty() ? FindAwsRegion(options.aws_profile, env)
                                                 : options.sigv4_region;
    if (params.region.empty()) {
      return Status::InvalidArgument(
          "SigV4 needs a region: a flag, AWS_REGION, AWS_DEFAULT_REGION or the profile's region");
    }
    if (params.service.empty()) return Status::InvalidArgument("SigV4 needs a service name");
    GPUCOST_RETURN_IF_ERROR(LoadAwsCredentials(options.aws_profile, env).status());
    return RequestDecorator([params, profile = options.aws_profile, clock = std::move(clock),
                             env = std::move(env)](HttpRequest& r) -> Status {
      GPUCOST_ASSIGN_OR_RETURN(AwsCredentials creds, LoadAwsCredentials(profile, env));
      return SignSigV4(r, creds, params, clock->Now()).status();
    });
  }
  return RequestDecorator();
}

}  // namespace gpucost::promsource
