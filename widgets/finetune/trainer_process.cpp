// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/finetune/trainer_process.h"

#include "widgets/state/cli_program.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTimer>

#include <cerrno>
#include <csignal>

namespace dice {

namespace {

QString shellQuoted(const QString& word) {
    static const QString plain =
        QStringLiteral("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%");
    bool quote = word.isEmpty();
    for (QChar c : word)
        quote = quote || !plain.contains(c);
    if (!quote)
        return word;
    QString escaped = word;
    escaped.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + escaped + QLatin1Char('\'');
}

} // namespace

TrainerProcess::TrainerProcess(QObject* parent)
    : QObject(parent)
    , m_program(defaultProgram())
    , m_watch(new QTimer(this)) {
    m_watch->setInterval(500);
    connect(m_watch, &QTimer::timeout, this, &TrainerProcess::check);
}

TrainerProcess::~TrainerProcess() = default;

QString TrainerProcess::defaultProgram() {
    return cliProgram();
}

QStringList TrainerProcess::arguments(const QString& config, const QString& folder) {
    return {QStringLiteral("train"),    QStringLiteral("rl"),
            QStringLiteral("--config"), config,
            QStringLiteral("--output"), folder};
}

QString TrainerProcess::commandLine(const QString& config, const QString& folder) const {
    QStringList words{shellQuoted(m_program)};
    for (const QString& word : arguments(config, folder))
        words << shellQuoted(word);
    return words.join(QLatin1Char(' '));
}

QString TrainerProcess::configFile(const QString& folder) {
    return QDir(folder).filePath(QStringLiteral("run-config.json"));
}

bool TrainerProcess::startWith(const QString& folder, const QByteArray& configuration,
                               QString* error) {
    if (!QDir().mkpath(folder)) {
        if (error)
            *error =
                tr("Could not create the run folder %1.").arg(QDir::toNativeSeparators(folder));
        return false;
    }
    QFile file(configFile(folder));
    if (!file.open(QIODevice::WriteOnly) || file.write(configuration) != configuration.size()) {
        if (error)
            *error = tr("Could not write %1: %2")
                         .arg(QDir::toNativeSeparators(file.fileName()), file.errorString());
        return false;
    }
    file.close();
    return start(configFile(folder), folder, error);
}

bool TrainerProcess::start(const QString& config, const QString& folder, QString* error) {
    if (running()) {
        if (error)
            *error = tr("A trainer is running already.");
        return false;
    }
    if (!QFileInfo(m_program).isExecutable()) {
        if (error)
            *error =
                tr("The trainer program %1 is missing.").arg(QDir::toNativeSeparators(m_program));
        return false;
    }
    if (!QFileInfo(folder).isDir()) {
        if (error)
            *error = tr("There is no run folder %1.").arg(QDir::toNativeSeparators(folder));
        return false;
    }
    QFile::remove(QDir(folder).filePath(QStringLiteral("PAUSE")));
    QFile::remove(QDir(folder).filePath(QStringLiteral("STOP")));
    QProcess process;
    process.setProgram(m_program);
    process.setArguments(arguments(config, folder));
    process.setStandardInputFile(QProcess::nullDevice());
    const QString log = QDir(folder).filePath(QStringLiteral("trainer.log"));
    process.setStandardOutputFile(log, QIODevice::Append);
    process.setStandardErrorFile(log, QIODevice::Append);
    qint64 pid = 0;
    if (!process.startDetached(&pid) || pid <= 0) {
        if (error)
            *error = tr("The trainer could not be started: %1").arg(process.errorString());
        return false;
    }
    m_pid = pid;
    m_watch->start();
    return true;
}

bool TrainerProcess::requestEnd(const QString& folder, End end, QString* error) {
    QFile file(QDir(folder).filePath(end == End::Pause ? QStringLiteral("PAUSE")
                                                       : QStringLiteral("STOP")));
    if (file.open(QIODevice::WriteOnly) && file.write("\n") == 1)
        return true;
    if (error)
        *error = tr("Could not write %1: %2")
                     .arg(QDir::toNativeSeparators(file.fileName()), file.errorString());
    return false;
}

bool TrainerProcess::alive(qint64 pid) {
    // Signal 0 checks that the process exists; EPERM means it does, under another user.
    return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

void TrainerProcess::check() {
    if (alive(m_pid))
        return;
    m_pid = 0;
    m_watch->stop();
    Q_EMIT ended();
}

} // namespace dice
