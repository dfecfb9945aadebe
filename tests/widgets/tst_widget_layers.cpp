// SPDX-License-Identifier: GPL-3.0-or-later
// The folders of widgets/ form layers: the shared state and the editor at the bottom, the work
// areas above them, the shell on top. An include may point down, or sideways between areas as
// long as no area ends up depending on itself; never up.
#include <QDirIterator>
#include <QFile>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <QtTest>

namespace {

const QMap<QString, int> kLayers = {
    {"state", 0}, {"editor", 0},  {"finetune", 1}, {"generate", 1}, {"infill", 1},
    {"model", 1}, {"profile", 1}, {"tasks", 1},    {"shell", 2},
};
constexpr int kAreaLayer = 1;

// Folder -> the other folders of widgets/ it includes, with one file that does, for the message.
using Graph = QMap<QString, QMap<QString, QString>>;

Graph includeGraph() {
    const QString root = QStringLiteral(DICE_SOURCE_DIR "/widgets");
    const QRegularExpression include(QStringLiteral("^\\s*#\\s*include\\s+\"widgets/(\\w+)/"),
                                     QRegularExpression::MultilineOption);
    Graph graph;
    QDirIterator it(root, {"*.h", "*.cpp"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString relative = QDir(root).relativeFilePath(path);
        const QString folder = relative.section('/', 0, 0);
        graph[folder];
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            qFatal("cannot read %s", qPrintable(path));
        const QString text = QString::fromUtf8(file.readAll());
        for (auto match = include.globalMatch(text); match.hasNext();) {
            const QString target = match.next().captured(1);
            if (target != folder)
                graph[folder].insert(target, relative);
        }
    }
    return graph;
}

// A cycle through folder, as "a -> b -> a", or empty.
QString cycleFrom(const Graph& graph, const QString& folder, QStringList path) {
    if (path.contains(folder))
        return (path.mid(path.indexOf(folder)) << folder).join(" -> ");
    path << folder;
    const QMap<QString, QString> targets = graph.value(folder);
    for (auto it = targets.begin(); it != targets.end(); ++it) {
        const QString cycle = cycleFrom(graph, it.key(), path);
        if (!cycle.isEmpty())
            return cycle;
    }
    return QString();
}

} // namespace

class TestWidgetLayers : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyFolderHasALayer() {
        const Graph graph = includeGraph();
        QVERIFY(graph.contains("state"));
        for (auto it = graph.begin(); it != graph.end(); ++it)
            QVERIFY2(kLayers.contains(it.key()),
                     qPrintable("widgets/" + it.key() + " is in no layer of this test"));
    }

    void noIncludePointsUp() {
        const Graph graph = includeGraph();
        for (auto from = graph.begin(); from != graph.end(); ++from) {
            const int layer = kLayers.value(from.key(), -1);
            for (auto to = from->begin(); to != from->end(); ++to) {
                const int target = kLayers.value(to.key(), -1);
                const bool down = target < layer;
                const bool sideways = target == layer && layer == kAreaLayer;
                QVERIFY2(target >= 0 && (down || sideways),
                         qPrintable(to.value() + " includes widgets/" + to.key() + "/"));
            }
        }
    }

    void noCycles() {
        const Graph graph = includeGraph();
        for (auto it = graph.begin(); it != graph.end(); ++it) {
            const QString cycle = cycleFrom(graph, it.key(), {});
            QVERIFY2(cycle.isEmpty(), qPrintable(cycle));
        }
    }
};

QTEST_GUILESS_MAIN(TestWidgetLayers)
#include "tst_widget_layers.moc"
