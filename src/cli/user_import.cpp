// `authd user import FILE [--update]` (interface.md 10.6): accounts from
// JSON Lines, one object a line with the members of POST /admin/users,
// checked by the same rules (api/admin_user_body.hpp). Valid lines are
// committed in batches of kBatchSize, each batch one transaction; an
// account whose e-mail exists is left alone (or, with --update, updated)
// and counted as existing either way. So a run cut off (even by kill -9)
// and started again on the same file creates the rest and no duplicate.
// A line over 1 MiB is invalid and skipped without being read whole.
// Prints, on standard output, "line N: reason" for each invalid line (never
// a password or a hash) and then "created N, existing M, invalid K"; exit
// status 1 when a line was invalid.
#include <fcntl.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <utility>

#include "api/admin_user_body.hpp"
#include "auth/events/account_events.hpp"
#include "auth/login/hash_admission.hpp"
#include "auth/mail_flows/mailed_links.hpp"
#include "cli/bounded_lines.hpp"
#include "cli/commands.hpp"
#include "core/wipe.hpp"
#include "crypto/password_hasher.hpp"
#include "crypto/random.hpp"
#include "store/backends/open_store.hpp"

namespace authd {
namespace {

constexpr std::size_t kBatchSize = 1000;
// interface.md 10.6.2: a longer line is invalid, and never read whole.
constexpr std::size_t kMaxLine = std::size_t{1024} * 1024;

struct ImportCounts {
  std::int64_t created = 0;
  std::int64_t existing = 0;
  std::int64_t invalid = 0;
};

struct ImportedUser {
  AdminUserFields fields;
  std::optional<std::string> password_hash;  // the stored hash, or a new argon2id one
};

// With --update, an existing account takes the line's members; a new
// password or hash ends its sessions and voids its reset tokens, as
// PUT /admin/users/{id}/password does, and disabling ends them too.
void update_existing(Transaction& tx, const EventSource& source, UserRecord user,
                     const ImportedUser& line, Millis now) {
  const UserRecord before = user;
  Millis at = std::max(now, user.updated_at + 1);
  bool changed = apply_admin_fields(user, line.fields, at);
  bool new_password = line.password_hash && line.password_hash != user.password_hash;
  if (new_password) user.password_hash = line.password_hash;
  if (new_password || user.disabled) {
    tx.sessions().delete_of_user(user.id);
    void_mailed_links(tx, user.id);
  }
  if (!changed && !new_password) return;
  user.updated_at = at;
  tx.users().update(user);
  record_account_changes(tx, source, before, user, at);
  if (new_password)
    record_event(tx, source, "password.changed", user.id, {{"stored", "import"}}, at);
}

class UserImport {
 public:
  UserImport(Store& store, const PasswordHasher& hasher, bool update, EventSource source,
             bool allow_costly_hashes)
      : store_(store),
        hasher_(hasher),
        update_(update),
        source_(std::move(source)),
        kinds_(store, hasher, allow_costly_hashes) {}

  // False when the database failed: the batch is not committed.
  bool add_line(std::int64_t number, std::string_view text) {
    if (text.find_first_not_of(" \t\r") == std::string_view::npos) return true;  // blank
    std::string problem;
    std::optional<AdminUserBody> body;
    if (auto object = parse_json_object(text, problem))
      body = read_admin_user_body(*object, AdminBody::create, problem);
    bool store_failed = false;
    if (body && body->password.hash) {
      // A kind too costly, or one too many (interface.md 10.5).
      if (auto refused = kinds_.problem(*body->password.hash, store_failed)) {
        problem = std::move(*refused);
        wipe(*body->password.hash);
        body.reset();
      }
    }
    if (store_failed) return false;
    if (!body) {
      add_invalid(number, problem);
      return true;
    }
    ImportedUser user{std::move(body->fields), std::move(body->password.hash)};
    if (body->password.password) {
      user.password_hash = hasher_.hash(*body->password.password);
      wipe(*body->password.password);
    }
    batch_.push_back(std::move(user));
    return batch_.size() < kBatchSize || flush();
  }

  void add_invalid(std::int64_t number, std::string_view reason) {
    ++counts_.invalid;
    std::cout << "line " << number << ": " << reason << "\n";
  }

  bool flush() {
    if (batch_.empty()) return true;
    ImportCounts added;
    StoreStatus status = store_.run(Store::Mode::write, [&](Transaction& tx) {
      added = {};  // a transaction may run again: all anew
      Millis now = now_millis();
      for (const ImportedUser& line : batch_) {
        UserRecord user;
        user.id = new_account_id(now);
        user.email = *line.fields.email;
        user.password_hash = line.password_hash;
        user.created_at = user.updated_at = now;
        apply_admin_fields(user, line.fields, now);
        if (tx.users().insert(user)) {
          ++added.created;
          record_event(tx, source_, "user.created", user.id,
                       {{"passwordSet", user.password_hash.has_value()}, {"imported", true}}, now);
          continue;
        }
        ++added.existing;
        if (update_) {
          if (auto existing = tx.users().by_email(user.email))
            update_existing(tx, source_, std::move(*existing), line, now);
        }
      }
    });
    for (ImportedUser& line : batch_)
      if (line.password_hash) wipe(*line.password_hash);
    batch_.clear();
    if (status != StoreStatus::ok) return false;
    counts_.created += added.created;
    counts_.existing += added.existing;
    return true;
  }

  const ImportCounts& counts() const { return counts_; }

 private:
  Store& store_;
  const PasswordHasher& hasher_;
  bool update_;
  EventSource source_;
  ImportedKinds kinds_;
  std::vector<ImportedUser> batch_;
  ImportCounts counts_;
};

// The file to read: standard input for "-"; -1 when it cannot be opened.
class InputFile {
 public:
  explicit InputFile(const std::string& path)
      : fd_(path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC)),
        owned_(path != "-") {}
  ~InputFile() {
    if (owned_ && fd_ >= 0) ::close(fd_);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
  bool owned_;
};

// Every line of `in` into `import`, until the end, a read error or a
// database failure. A line over kMaxLine is reported and skipped without
// being held (cli/bounded_lines.hpp).
BoundedLines::Next import_lines(BoundedLines& in, UserImport& import, std::int64_t& number,
                                bool& stored) {
  const std::string* line = nullptr;
  while (stored) {
    BoundedLines::Next next = in.next(line);
    if (next == BoundedLines::Next::end || next == BoundedLines::Next::failed) return next;
    ++number;
    if (next == BoundedLines::Next::too_long) {
      import.add_invalid(number, "longer than 1 MiB (1048576 bytes)");
      continue;
    }
    stored = import.add_line(number, *line);
  }
  return BoundedLines::Next::end;
}

int run_import(const Config& config, const std::string& path, bool update) {
  InputFile file(path);
  if (file.fd() < 0) {
    std::cerr << "error: cannot read " << path << "\n";
    return 2;
  }
  auto store = open_store(config.database, config.store_options());
  store->migrate();
  PasswordHasher hasher({config.argon2_memory_kib, config.argon2_iterations});
  UserImport import(*store, hasher, update, cli_event_source(config), config.allow_costly_hashes);
  BoundedLines in(file.fd(), kMaxLine);
  std::int64_t number = 0;
  bool stored = true;
  bool read = import_lines(in, import, number, stored) != BoundedLines::Next::failed;
  stored = stored && import.flush();
  const ImportCounts& counts = import.counts();
  std::cout << "created " << counts.created << ", existing " << counts.existing << ", invalid "
            << counts.invalid << std::endl;
  if (!stored) {
    std::cerr << "error: the database did not answer; lines after line " << number
              << " were not imported (run the import again: it resumes)\n";
    return 1;
  }
  if (!read) {
    std::cerr << "error: cannot read " << path << " after line " << number << "\n";
    return 2;
  }
  return counts.invalid == 0 ? 0 : 1;
}

}  // namespace

void add_user_import_command(CommandRegistry& commands, CLI::App& user) {
  auto path = std::make_shared<std::string>();
  auto update = std::make_shared<bool>(false);
  commands.add(
      user, {.name = "import",
             .help = "Create accounts from JSON Lines (FILE, or - for stdin), committed in batches",
             .options =
                 [path, update](CLI::App& command, Config& config) {
                   add_database_options(command, config);
                   add_password_options(command, config);
                   command.add_option("file", *path, "JSON Lines file, or - for standard input")
                       ->required();
                   command.add_flag("--update", *update,
                                    "Update accounts whose e-mail exists instead of skipping");
                 },
             .run = [path, update](const Config& c) { return run_import(c, *path, *update); }});
}

}  // namespace authd
