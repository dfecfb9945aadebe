// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

class QTimer;

namespace dice {

// One `dice train rl` process, started detached so that the run outlives the workbench (a crash,
// or a quit in the middle of a long run): it writes everything to its run folder, its own output
// included (trainer.log), and the Fine-tune area follows the folder. Pause and stop are the
// trainer's control files (PAUSE, STOP), which work as well for a run started elsewhere.
class TrainerProcess : public QObject {
    Q_OBJECT
public:
    explicit TrainerProcess(QObject* parent = nullptr);
    ~TrainerProcess() override;

    // The `dice` program: $DICE_CLI_PROGRAM, or the one beside this program.
    static QString defaultProgram();
    void setProgram(const QString& program) { m_program = program; }
    QString program() const { return m_program; }

    // The arguments that run `config` (a configuration file) into the run folder `folder`.
    static QStringList arguments(const QString& config, const QString& folder);
    // The command as a user would type it, quoted for a POSIX shell.
    QString commandLine(const QString& config, const QString& folder) const;

    // The configuration file a run started here is given: folder/run-config.json.
    static QString configFile(const QString& folder);

    // Starts the trainer on a configuration file; false with the reason when it could not be
    // started. A PAUSE or STOP file left from before is removed, so that a run started again
    // resumes; the log of the run is appended to folder/trainer.log.
    bool start(const QString& config, const QString& folder, QString* error);
    // Writes `configuration` to the folder's configFile() and starts the trainer on it.
    bool startWith(const QString& folder, const QByteArray& configuration, QString* error);
    bool running() const { return m_pid > 0; }
    qint64 pid() const { return m_pid; }

    // Ends the run after its current step with a checkpoint (the trainer's PAUSE or STOP file).
    enum class End { Pause, Stop };
    static bool requestEnd(const QString& folder, End end, QString* error);
    // True when a trainer with this process id lives on this machine.
    static bool alive(qint64 pid);

Q_SIGNALS:
    // The process ended (whether it finished, paused, failed or was killed: the run folder's
    // status says which).
    void ended();

private:
    void check();

    QString m_program;
    qint64 m_pid = 0;
    QTimer* m_watch;
};

} // namespace dice
